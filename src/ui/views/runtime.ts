/**
 * Runtime: the journal as a story per workflow, each with its handoff graph; a handoff's content
 * on its own page; and the runtime service's live subscriptions when one is configured.
 */
import { journalStory, readJournal, readStoredHandoff } from '../../runtime/index.js';
import type { UiContext } from '../context.js';
import { ledgerPaths } from '../context.js';
import { handoffGraph, handoffHref, sessionAnchor } from '../handoff-graph.js';
import { clockTag, type Html, html, timeTag } from '../html.js';
import type { ServiceStatus } from '../runtime-service.js';
import { type RuntimeSession, readWorkflows, type Workflow } from '../workflows.js';
import { subscriptionsSection } from './subscriptions.js';

/** How far back the journal is read, and how many workflows a page shows at most. */
export const RUNTIME_RANGES = ['7d', '30d', 'all'] as const;
export type RuntimeRange = (typeof RUNTIME_RANGES)[number];
const SHOWN_WORKFLOWS = 30;

export function runtimeRangeOf(value: string | null): RuntimeRange {
  return (RUNTIME_RANGES as readonly string[]).includes(value ?? '') ? (value as RuntimeRange) : '30d';
}

export interface RuntimeModel {
  journal: string;
  range: RuntimeRange;
  /** Workflows in range, before the page's cut. */
  total: number;
  workflows: Workflow[];
  entries: number;
  service: ServiceStatus;
}

export async function runtimeModel(
  context: UiContext,
  range: RuntimeRange,
  service: Promise<ServiceStatus>,
): Promise<RuntimeModel> {
  const { journal } = ledgerPaths(context);
  const { workflows, entries } = readWorkflows(journal, range === 'all' ? undefined : range);
  return {
    journal,
    range,
    total: workflows.length,
    workflows: workflows.slice(0, SHOWN_WORKFLOWS),
    entries,
    service: await service,
  };
}

function handoffLink(id: string): Html {
  return html`<a href="${handoffHref(id)}"><code>${id}</code></a>`;
}

/** Marks on a story line: a refusal or denial is bad, an insufficient handoff a warning. */
const LINE_CLASS: Readonly<Record<string, string>> = {
  refusal: 'bad',
  denial: 'bad',
  handoff_insufficient: 'warn',
};

/** Text with every known handoff id in it turned into a link to that handoff. */
function linkHandoffs(text: string, ids: readonly string[]): Html {
  if (ids.length === 0) return html`${text}`;
  const pattern = new RegExp(`(${ids.map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`);
  return html`${text.split(pattern).map((part, i) => (i % 2 === 1 ? handoffLink(part) : part))}`;
}

/**
 * One session's part of the story: the runtime's own sentence for each of its journal rows
 * (journalStory, as `firstlight runtime demo` tells it), each handoff a link to its content.
 */
function story(s: RuntimeSession, handoffs: readonly string[]): Html {
  const sentences = journalStory(s.entries);
  const lines = s.entries.map((e, i) => {
    const sentence = sentences[i]!.replace(/^\S*\s+/, '');
    const cls = LINE_CLASS[e.kind ?? ''];
    return html`<li${cls ? html` class="${cls}"` : ''}>${clockTag(e.at)} ${e.kind === 'refusal' ? '✕ ' : e.kind === 'denial' ? '⊘ ' : e.kind === 'handoff_insufficient' ? '⚠ ' : ''}${linkHandoffs(sentence, handoffs)}</li>`;
  });
  return html`<li id="${sessionAnchor(s.id)}" tabindex="-1" class="session-story"><h4>${s.role ?? 'session'}${
    s.persona && s.persona !== s.role ? ` (${s.persona})` : ''
  } <span class="muted">${s.id}</span></h4><ul>${lines}</ul></li>`;
}

/** Every handoff a workflow's sessions read or produced. */
function handoffIds(w: Workflow): string[] {
  const ids = new Set<string>();
  for (const s of w.sessions) {
    for (const id of s.inputs) ids.add(id);
    if (s.produced) ids.add(s.produced.id);
  }
  // Longest first: an id that is a prefix of another never takes its place in a sentence.
  return [...ids].sort((a, b) => b.length - a.length);
}

export function runtimeView(model: RuntimeModel, now: Date): Html {
  return html`<h1>Runtime</h1>
<p class="lede">The journal (<code>${model.journal}</code>, ${model.entries} row(s) in range) as one story per workflow: sessions joined by the handoffs between them. Select a session to read its part, a handoff arrow to read its content.</p>
<nav aria-label="Time range" class="ranges">${RUNTIME_RANGES.map(
    (r) =>
      html`<a href="/runtime?range=${r}"${r === model.range ? html` aria-current="true"` : ''}>${r === 'all' ? 'all' : `last ${r}`}</a> `,
  )}</nav>
${model.total > model.workflows.length ? html`<p class="muted">The newest ${model.workflows.length} of ${model.total} workflows.</p>` : ''}
${subscriptionsSection(model.service, now)}
${
  model.workflows.length === 0
    ? html`<p>No runtime session journaled yet: <code>firstlight invoke</code> writes here.</p>`
    : model.workflows.map(
        (w, i) => html`<section class="card workflow" aria-labelledby="wf-${i}" data-testid="workflow">
<h2 id="wf-${i}">Workflow ${model.total - i}: ${w.sessions
          .map((s) => `${s.role ?? '?'}${s.status === 'refused' ? ' (refused)' : ''}`)
          .join(' → ')}</h2>
<p class="muted">Started ${timeTag(w.started, now)}; ${w.sessions.length} session(s).</p>
<div class="scroll">${handoffGraph(w)}</div>
<h3>The story <span class="muted">(times in UTC)</span></h3>
<ol class="story">${w.sessions.map((s) => story(s, handoffIds(w)))}</ol>
</section>`,
      )
}`;
}

/** A handoff's own page: what it encodes, who made it, what it was made from. */
export function handoffView(context: UiContext, id: string, now: Date): Html | undefined {
  const stored = readStoredHandoff(context.ledger, id);
  if (!stored) return undefined;
  const { record } = stored;
  // The hash its transition or import row recorded: the file still holds what was handed on?
  const journaled = readJournal(ledgerPaths(context).journal).find(
    (e) => (e.kind === 'transition' || e.kind === 'import') && e.fields.handoff === id && e.fields.sha256,
  )?.fields.sha256;
  const hash =
    journaled === undefined
      ? html`<span class="muted">${stored.sha256} (no journal row records a hash for it)</span>`
      : journaled === stored.sha256
        ? html`<span class="ok" data-testid="handoff-hash">✓ matches the journal</span> <span class="muted">${stored.sha256}</span>`
        : html`<span class="bad" data-testid="handoff-hash">✗ changed since it was journaled</span> <span class="muted">file ${stored.sha256}, journal ${journaled}: the runtime refuses it (handoff_unverified)</span>`;
  return html`<nav class="crumbs" aria-label="Breadcrumb"><a href="/runtime">Runtime</a> › handoff ${record.id}</nav>
<h1>${record.kind} handoff <code>${record.id}</code></h1>
<section class="card" aria-labelledby="about"><h2 id="about">About</h2><dl class="fields">
<dt>kind</dt><dd>${record.kind}</dd>
<dt>created</dt><dd>${timeTag(record.created, now)}</dd>
${record.from_role ? html`<dt>from</dt><dd>${record.from_role}${record.persona ? ` (${record.persona})` : ''}${record.from_session ? html`, session <a href="/runtime#${sessionAnchor(record.from_session)}"><code>${record.from_session}</code></a>` : ''}</dd>` : ''}
${record.imported_from ? html`<dt>imported from</dt><dd><code>${record.imported_from}</code></dd>` : ''}
${record.inputs && record.inputs.length > 0 ? html`<dt>made from</dt><dd>${record.inputs.map((i) => html`${handoffLink(i)} `)}</dd>` : ''}
${record.override_produced ? html`<dt>override</dt><dd>produced under an operator override</dd>` : ''}
<dt>sha256</dt><dd>${hash}</dd>
</dl></section>
<section class="card" aria-labelledby="content"><h2 id="content">Content</h2><pre class="json" data-testid="handoff-content">${JSON.stringify(record.content, null, 2)}</pre></section>`;
}
