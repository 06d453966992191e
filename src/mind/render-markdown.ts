import { renderResumption } from '../resume/index.js';
import { memoriesCounted } from './memory/catalog.js';
import type { BootstrapPacket } from './packet-schema.js';

/** The SessionStart hook injects this; Claude Code turns anything over 10,000 chars into a file. */
export const DEFAULT_MARKDOWN_MAX_CHARS = 8000;

export interface RenderOptions {
  maxChars?: number;
}

const CONTRACT_CUT_NOTE =
  '\n\n[… mind contract truncated to fit the injection budget: call get_system_prompt() for the full text.]';

/**
 * The packet as markdown, at most `maxChars`: resumption first (the agent reads its own last
 * thought before anything else), then the orientation, degraded notices, the mind contract
 * (truncated with a pointer to get_system_prompt when it does not fit), context, catalog,
 * protocol, guidance and taskspace.
 */
export function renderPacketMarkdown(packet: BootstrapPacket, options: RenderOptions = {}): string {
  const maxChars = options.maxChars ?? DEFAULT_MARKDOWN_MAX_CHARS;
  const head: string[] = [];
  // The resume part owns the section's shape; aged against the packet's own clock.
  const resumption = packet.resumption
    ? renderResumption(packet.resumption, { now: new Date(packet.context.now) })
    : '';
  if (resumption !== '') head.push(resumption);
  head.push(orientation(packet));
  const tail = [
    relevantSection(packet),
    contextSection(packet),
    catalogSection(packet),
    surprisesSection(packet),
    protocolSection(packet),
    guidanceSection(packet),
    taskspaceSection(packet),
  ].filter((s) => s !== '');
  const contractHeader = packet.mind_contract_available
    ? '## Mind contract\n\n'
    : '## Mind contract (UNAVAILABLE)\n\n';
  const fixed = [...head, ...tail].join('\n\n').length + contractHeader.length + 4;
  // The persona's own headings go under "## Mind contract", not beside it.
  let contract = demoteHeadings(packet.mind_contract.trim(), SECTION_LEVEL + 1);
  const room = maxChars - fixed;
  if (contract.length > room) {
    const keep = Math.max(0, room - CONTRACT_CUT_NOTE.length);
    contract = `${contract.slice(0, keep).replace(/\s+\S*$/, '')}${CONTRACT_CUT_NOTE}`;
  }
  let text = withoutBlankRuns([...head, `${contractHeader}${contract}`, ...tail].join('\n\n'));
  // Last resort (a huge resumption or context): cut from the end, never the beginning.
  if (text.length > maxChars) text = `${text.slice(0, maxChars - 2).replace(/\s+\S*$/, '')}\n…`;
  return text;
}

function orientation(packet: BootstrapPacket): string {
  // The tool call must carry the session id: per-session resumption and a clear-after-inject
  // tail this session already took are matched on it, and the agent has no other way to know it.
  const id = packet.session_id ? JSON.stringify(packet.session_id) : null;
  const call = id ? `bootstrap_session(session_id: ${id})` : 'bootstrap_session()';
  const alsoInternalize = id ? ' Pass the same session_id to `internalize`.' : '';
  const lines = [
    '# firstlight: session bootstrap',
    '',
    `Required first call: \`${call}\` on the firstlight MCP server (this text is a preview; high-blast-radius tools stay gated until the call succeeds).${alsoInternalize}`,
  ];
  if (!packet.mind_contract_available) {
    lines.push(
      '',
      '**The mind is DEGRADED: the contract did not assemble. Say so, and do not impersonate the persona.**',
    );
  }
  if (packet.degraded_mode.reasons.length > 0) {
    const causes = packet.degraded_mode.causes ?? {};
    lines.push(
      '',
      'Degraded:',
      ...packet.degraded_mode.reasons.map((r) => (causes[r] ? `- ${r}: ${causes[r]}` : `- ${r}`)),
    );
  }
  return lines.join('\n');
}

function relevantSection(packet: BootstrapPacket): string {
  const r = packet.relevant_memories;
  if (!r) return '';
  const line = (m: { name: string; type: string; description: string }) =>
    `- ${m.name} (${m.type})${m.description && m.description !== m.name ? `: ${m.description}` : ''}`;
  const lines = ['## Relevant memories'];
  if (r.instructions.length > 0)
    lines.push('', 'Instructions and cautions in force:', ...r.instructions.map(line));
  if (r.related.length > 0) lines.push('', 'Related to where you left off:', ...r.related.map(line));
  lines.push('', 'recall(query) gives any of them in full.');
  return lines.join('\n');
}

function contextSection(packet: BootstrapPacket): string {
  const c = packet.context;
  const lines = ['## Active context'];
  if (c.last_session) lines.push(`- Last session: ${c.last_session.human} (${c.last_session.at})`);
  if (c.open_commitments.length > 0)
    lines.push('- Open commitments:', ...c.open_commitments.map((x) => `  - ${x}`));
  if (c.recent_carry_forward.length > 0)
    lines.push('- Carried forward:', ...c.recent_carry_forward.map((x) => `  - ${x}`));
  if (c.people.length > 0) {
    lines.push(
      '- People:',
      ...c.people.map((p) => `  - ${p.name}${p.description ? `: ${p.description}` : ''}`),
    );
  }
  return lines.length > 1 ? lines.join('\n') : '';
}

function catalogSection(packet: BootstrapPacket): string {
  const m = packet.memory_catalog;
  // A person counts memories: MEMORY.md is in total_count and category_counts (the seed's
  // catalog), not in this text (issue 38).
  const counts = Object.entries(m.category_counts)
    .filter(([k]) => k !== 'index')
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const n = memoriesCounted(m);
  const scope = m.project
    ? ` of project ${m.project.name} (${m.project.count}) and global`
    : m.other_projects_count
      ? ' (global)'
      : '';
  const others = m.other_projects_count
    ? ` ${m.other_projects_count} more belong to other projects (recall with all_projects to search them).`
    : '';
  return `## Memory\n\n${n} ${n === 1 ? 'memory' : 'memories'}${scope} (${counts || 'none'}); index MEMORY.md ${m.index_present ? 'present' : 'missing'}. Use recall(query) to search them.${others}`;
}

function surprisesSection(packet: BootstrapPacket): string {
  const u = packet.unreflected_surprises;
  if (!u || u.count === 0) return '';
  return [
    `## Unreflected surprises (${u.count})`,
    '',
    ...u.top.map((line) => `- ${line}`),
    '',
    'reflect(observation, kind="internal", cites=[event id]) once you know why.',
  ].join('\n');
}

function protocolSection(packet: BootstrapPacket): string {
  return `## Per-turn protocol\n\n${packet.cognition_protocol.map((r) => `- ${r}`).join('\n')}`;
}

function guidanceSection(packet: BootstrapPacket): string {
  if (!packet.guidance || packet.guidance.length === 0) return '';
  const docs = packet.guidance.map((g) => `- ${g.name} (${g.uri}): ${g.directive}`).join('\n');
  // Copilot CLI and Codex have no resources: the tool is the one way every host can read a doc.
  return `## Guidance\n\n${docs}\n\nRead any of them in full with expand_reference(name).`;
}

function taskspaceSection(packet: BootstrapPacket): string {
  const t = packet.taskspace;
  if (!t) return '';
  const lines = [`## Taskspace: ${t.name}`];
  const description = demoteHeadings(t.description.trim(), SECTION_LEVEL + 1);
  if (description !== '') lines.push('', description);
  if (t.initial_prompt) lines.push('', `Initial task: ${t.initial_prompt}`);
  return lines.join('\n');
}

/** The level of the packet's own sections (`## Active context`). */
const SECTION_LEVEL = 2;
const HEADING = /^( {0,3})(#{1,6})(?=[ \t]|$)/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Shifts an embedded document's ATX headings so its shallowest one sits at `level` (never past
 * `######`, the deepest markdown has), leaving fenced code alone: a persona's own `# Name` and
 * `## Voice` become `###` and `####` under the packet's `## Mind contract`, instead of reading
 * as packet sections.
 */
function demoteHeadings(text: string, level: number): string {
  const lines = text.split('\n');
  const inFence = fencedLines(lines);
  let shallowest = 7;
  lines.forEach((line, i) => {
    const m = inFence[i] ? null : HEADING.exec(line);
    if (m) shallowest = Math.min(shallowest, m[2]!.length);
  });
  const shift = level - shallowest;
  if (shallowest === 7 || shift <= 0) return text;
  return lines
    .map((line, i) =>
      inFence[i]
        ? line
        : line.replace(
            HEADING,
            (_all, indent: string, hashes: string) =>
              `${indent}${'#'.repeat(Math.min(6, hashes.length + shift))}`,
          ),
    )
    .join('\n');
}

/** Which lines are inside (or open/close) a fenced code block. */
function fencedLines(lines: string[]): boolean[] {
  let open: string | undefined;
  return lines.map((line) => {
    const m = FENCE.exec(line);
    if (open === undefined) {
      if (m) open = m[1]![0]!.repeat(m[1]!.length);
      return open !== undefined;
    }
    if (m && m[1]![0] === open[0] && m[1]!.length >= open.length && line.trim() === m[1]) open = undefined;
    return true;
  });
}

/** One blank line at most between blocks, none at the ends: whitespace-only lines count as blank. */
function withoutBlankRuns(text: string): string {
  return text
    .split('\n')
    .map((line) => (line.trim() === '' ? '' : line))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
