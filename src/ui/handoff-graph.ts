/**
 * A workflow's handoff chain as an inline SVG: one column per mode (explorer → planner → builder
 * → validator → resolver, then a column for roles without a mode), one row per session in time
 * order, an arrow per handoff from the session that produced it to each that read it. Refusals,
 * denials and insufficient handoffs are marked on their session. Every session is a link to its
 * part of the story and every handoff a link to its content, so both are reachable by keyboard.
 */
import { MODES, ROLE_POLICY, ROLES } from '../runtime/index.js';
import { type Html, html, urlPart } from './html.js';
import type { RuntimeSession, Workflow } from './workflows.js';

const COL = 168;
const ROW = 86;
const NODE_W = 136;
const NODE_H = 52;
const LEFT = 12;
const TOP = 40;

/** Each mode's column and its role's name. */
const COLUMNS: { mode: string; role: string }[] = MODES.map((mode) => ({
  mode,
  role: ROLES.find((r) => ROLE_POLICY[r].mode === mode) ?? mode,
}));

function columnOf(s: RuntimeSession): number {
  const i = COLUMNS.findIndex((c) => c.mode === s.mode);
  return i >= 0 ? i : COLUMNS.length;
}

const fixed = (n: number) => n.toFixed(1);

function marks(s: RuntimeSession): string[] {
  const out: string[] = [];
  if (s.status === 'refused') out.push('✕ refused');
  if (s.denials.length > 0) out.push(`⊘ ${s.denials.length} denied`);
  if (s.insufficient) out.push('⚠ insufficient');
  if (s.status === 'failed') out.push('✕ failed');
  if (s.status === 'yielded') out.push('↩ yielded');
  return out;
}

export function sessionAnchor(id: string): string {
  return `session-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

export function handoffHref(id: string): string {
  return `/runtime/handoff/${urlPart(id)}`;
}

export function handoffGraph(workflow: Workflow): Html {
  const sessions = workflow.sessions;
  const at = new Map<string, { x: number; y: number }>();
  sessions.forEach((s, row) => {
    at.set(s.id, { x: LEFT + columnOf(s) * COL, y: TOP + row * ROW });
  });
  const hasOther = sessions.some((s) => columnOf(s) === COLUMNS.length);
  const columns = hasOther ? [...COLUMNS, { mode: 'no mode', role: 'general / observer' }] : COLUMNS;
  const producedBy = new Map<string, RuntimeSession>();
  for (const s of sessions) if (s.produced) producedBy.set(s.produced.id, s);
  const unread = sessions.filter(
    (s) => s.produced && !sessions.some((o) => o.inputs.includes(s.produced!.id)),
  );
  const width = LEFT * 2 + columns.length * COL;
  const height = TOP + (sessions.length + (unread.length > 0 ? 1 : 0)) * ROW + 8;
  const marker = `arrow-${sessionAnchor(workflow.id)}`;
  const edges: Html[] = [];
  for (const s of sessions) {
    const to = at.get(s.id)!;
    for (const input of s.inputs) {
      const from = producedBy.get(input);
      const start = from ? at.get(from.id)! : { x: to.x - COL / 2, y: to.y - ROW / 2 };
      const kind = from?.produced?.kind ?? 'handoff';
      edges.push(edge(marker, start, to, input, kind, from?.role ?? 'a file', s.role ?? s.id));
    }
  }
  // A handoff nobody read yet: an arrow to a dashed place in the column of the role that reads it.
  const ghosts: Html[] = [];
  for (const s of unread) {
    const produced = s.produced!;
    const from = at.get(s.id)!;
    const col = COLUMNS.findIndex((c) => c.mode === produced.to);
    const reader = col >= 0 ? COLUMNS[col]!.role : produced.to;
    const to = { x: LEFT + (col >= 0 ? col : columns.length - 1) * COL, y: from.y + ROW };
    edges.push(
      edge(marker, from, to, produced.id, produced.kind, s.role ?? s.id, `${reader} (not run yet)`, true),
    );
    ghosts.push(
      html`<rect class="node node-ghost" x="${fixed(to.x)}" y="${fixed(to.y)}" width="${NODE_W}" height="${NODE_H}" rx="8"/><text class="node-sub" x="${fixed(to.x + 8)}" y="${fixed(to.y + 20)}">${reader}</text><text class="node-sub" x="${fixed(to.x + 8)}" y="${fixed(to.y + 36)}">not run yet</text>`,
    );
  }
  const labelledBy = `graph-title-${sessionAnchor(workflow.id)}`;
  return html`<svg class="graph" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="group" aria-labelledby="${labelledBy}" data-testid="handoff-graph">
<title id="${labelledBy}">Handoff chain of workflow ${workflow.id}: ${sessions.length} session(s)</title>
<defs><marker id="${marker}" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" class="arrowhead"/></marker></defs>
${columns.map(
  (c, i) =>
    html`<text class="col-label" x="${fixed(LEFT + i * COL + NODE_W / 2)}" y="16" text-anchor="middle">${c.role}</text><text class="col-sub" x="${fixed(LEFT + i * COL + NODE_W / 2)}" y="30" text-anchor="middle">${c.mode}</text>`,
)}
${ghosts}
${edges}
${sessions.map((s) => node(s, at.get(s.id)!))}
</svg>`;
}

function node(s: RuntimeSession, p: { x: number; y: number }): Html {
  const flagged = marks(s);
  const cls =
    s.status === 'refused' || s.status === 'failed'
      ? 'node node-bad'
      : flagged.length > 0
        ? 'node node-warn'
        : 'node';
  const label = `${s.role ?? 'session'} ${s.persona && s.persona !== s.role ? `(${s.persona}) ` : ''}${s.status}${flagged.length > 0 ? `; ${flagged.join('; ')}` : ''}`;
  return html`<a href="#${sessionAnchor(s.id)}" class="node-link" aria-label="${label}" data-session="${s.id}">
<rect class="${cls}" x="${fixed(p.x)}" y="${fixed(p.y)}" width="${NODE_W}" height="${NODE_H}" rx="8"/>
<text class="node-title" x="${fixed(p.x + 8)}" y="${fixed(p.y + 18)}">${s.role ?? 'session'}${s.persona && s.persona !== s.role ? ` · ${s.persona}` : ''}</text>
<text class="node-sub" x="${fixed(p.x + 8)}" y="${fixed(p.y + 34)}">${s.status === 'completed' ? '✓ completed' : s.status === 'refused' ? (s.refusal?.reason ?? 'refused') : s.status}</text>
${flagged.length > 0 ? html`<text class="node-mark" x="${fixed(p.x + 8)}" y="${fixed(p.y + 47)}">${flagged[0]!.slice(0, 22)}</text>` : ''}
</a>`;
}

function edge(
  marker: string,
  from: { x: number; y: number },
  to: { x: number; y: number },
  id: string,
  kind: string,
  fromLabel: string,
  toLabel: string,
  pending = false,
): Html {
  const x1 = from.x + NODE_W / 2;
  const y1 = from.y + NODE_H;
  const x2 = to.x + NODE_W / 2;
  const y2 = to.y;
  const d = `M${fixed(x1)},${fixed(y1)} C${fixed(x1)},${fixed(y1 + 24)} ${fixed(x2)},${fixed(y2 - 24)} ${fixed(x2)},${fixed(y2 - 2)}`;
  const mx = (x1 + x2) / 2;
  const my = (y1 + y2) / 2;
  return html`<a href="${handoffHref(id)}" class="edge-link" aria-label="${kind} handoff ${id} from ${fromLabel} to ${toLabel}" data-handoff="${id}">
<path class="${pending ? 'edge edge-pending' : 'edge'}" d="${d}" marker-end="url(#${marker})"/>
<text class="edge-label" x="${fixed(mx + 6)}" y="${fixed(my + 4)}">${kind}</text>
</a>`;
}
