/**
 * Observations: the event stream (the agent's observe/reflect and the hooks' records of tool
 * calls), prediction errors plotted over time, the cautions that fired with what the agent did
 * next, and the surprises not yet reflected on.
 */
import { join } from 'node:path';
import {
  type CognitionEvent,
  type EventHit,
  listEvents,
  listMemoryUses,
  type MemoryUse,
  readSurprises,
  STOP_LINE,
  type Surprise,
} from '../../mind/index.js';
import type { UiContext } from '../context.js';
import { clipText, type Html, html, timeTag } from '../html.js';
import { errorPlot } from '../plot.js';

export const RANGES = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000, all: 0 } as const;
export type Range = keyof typeof RANGES;

const SHOWN_EVENTS = 200;

export interface ObservationsModel {
  range: Range;
  from: Date;
  to: Date;
  events: CognitionEvent[];
  matched: number;
  skippedLines: number;
  cautions: { use: MemoryUse; next: CognitionEvent | undefined }[];
  surprises: Surprise[];
  /** Observations above the stop line in range that no reflect in range cites. */
  uncited: CognitionEvent[];
  /** What the search box asked ('' for none) and what the agent's recall over events found in range. */
  q: string;
  found: EventHit[];
}

/** Search hits shown at most (recall's maximum). */
const SHOWN_HITS = 50;

export function rangeOf(value: string | null): Range {
  return value !== null && value in RANGES ? (value as Range) : '7d';
}

export function observationsModel(context: UiContext, range: Range, q = ''): ObservationsModel {
  const to = context.clock();
  const span = RANGES[range];
  const since = span > 0 ? new Date(to.getTime() - span) : undefined;
  const listing = listEvents(join(context.home, 'events'), { limit: 20_000, ...(since ? { since } : {}) });
  const events = listing.events;
  const from = since ?? (events[0] ? new Date(events[0].ts) : new Date(to.getTime() - 86_400_000));
  const cited = new Set(events.flatMap((e) => e.cites ?? []));
  const uses = listMemoryUses(context.home, { via: 'caution', limit: 200, ...(since ? { since } : {}) });
  const cautions = uses.map((use) => ({ use, next: nextInSession(events, use) }));
  const query = q.trim();
  // The agent's recall over events, in the range shown.
  const found =
    query === ''
      ? []
      : (context
          .recall()
          .recall(query, { source: 'events', k: SHOWN_HITS, ...(since ? { since } : {}) })
          .results.filter((r) => r.source === 'events') as EventHit[]);
  return {
    q: query,
    found,
    range,
    from,
    to,
    events,
    matched: listing.matched,
    skippedLines: listing.skipped_lines,
    cautions,
    surprises: readSurprises(context.home),
    uncited: events.filter(
      (e) => typeof e.prediction_error === 'number' && e.prediction_error > STOP_LINE && !cited.has(e.id),
    ),
  };
}

/** The first event of the caution's session at or after it: the call itself, or what came instead. */
function nextInSession(events: CognitionEvent[], use: MemoryUse): CognitionEvent | undefined {
  if (!use.session) return undefined;
  return events.find((e) => e.session === use.session && e.ts >= use.ts);
}

function what(e: CognitionEvent): Html {
  if (e.kind === 'reflect')
    return html`reflect (${e.reflect_kind ?? ''}): ${clipText(e.observation ?? '', 160)}${
      e.cites?.length ? html` <span class="muted">cites ${e.cites.join(', ')}</span>` : ''
    }`;
  return html`<code>${e.tool_name ?? '?'}</code>${e.expected ? html` expected: ${clipText(e.expected, 100)}` : ''}${
    e.result ? html` → ${clipText(e.result, 100)}` : ''
  }${e.outcome === 'denied' ? html` <strong class="bad">refused</strong>: ${clipText(e.error ?? '', 140)}` : ''}${
    e.outcome === 'error' ? html` <strong class="bad">error</strong>: ${clipText(e.error ?? '', 140)}` : ''
  }`;
}

function who(e: CognitionEvent): string {
  return e.source === 'hook' ? `hook${e.host ? ` (${e.host})` : ''}` : 'agent';
}

function pe(e: CognitionEvent): Html | string {
  if (typeof e.prediction_error !== 'number') return '';
  const high = e.prediction_error > STOP_LINE;
  return html`<span class="${high ? 'bad' : ''}">${e.prediction_error.toFixed(2)}${high ? ' ▲' : ''}</span>`;
}

function afterCaution(c: { use: MemoryUse; next: CognitionEvent | undefined }): Html | string {
  const next = c.next;
  if (!next) return html`<span class="muted">nothing recorded after it</span>`;
  if (next.outcome === 'denied')
    return html`the call was refused (<code>${next.tool_name ?? ''}</code>${commandOf(next)})`;
  if (next.tool_name === c.use.tool && next.source === 'hook')
    return html`went ahead with <code>${next.tool_name}</code>${commandOf(next)}${next.outcome === 'error' ? ' (it failed)' : ''}`;
  return html`${who(next)}: ${what(next)}`;
}

/** The search's hits: when, who, what it was (the excerpt around the words), its session. */
function searchResults(model: ObservationsModel, now: Date): Html {
  if (model.found.length === 0)
    return html`<p data-testid="event-hits">No event in this range matches “${model.q}”.</p>`;
  return html`<section class="card" aria-labelledby="hits-heading"><h2 id="hits-heading">Events matching “${model.q}”</h2>
<table data-testid="event-hits"><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Session</th><th scope="col">Score</th></tr></thead><tbody>${model.found.map(
    (h) =>
      html`<tr><td>${timeTag(h.time, now)}</td><td>${h.host ? `hook (${h.host})` : 'agent'}</td><td><code>${h.name}</code> <span class="muted">${h.type}</span><br>${clipText(h.excerpt, 240)}</td><td>${h.session ?? ''}</td><td>${h.score}</td></tr>`,
  )}</tbody></table></section>`;
}

/**
 * What the call ran, as the hook recorded it (redacted): a shell's command, else a file path,
 * else the arguments; what the agent did after a caution is read by its command (issue 38).
 */
function commandOf(e: CognitionEvent): Html | string {
  if (!e.args) return '';
  let shown = e.args;
  try {
    const parsed = JSON.parse(e.args) as Record<string, unknown> | null;
    const named =
      parsed && typeof parsed === 'object' ? (parsed.command ?? parsed.file_path ?? parsed.path) : undefined;
    if (typeof named === 'string') shown = named;
  } catch {
    // not JSON: the text as recorded
  }
  return html`: <code data-testid="command">${clipText(shown, 160)}</code>`;
}

export function observationsView(model: ObservationsModel, now: Date): Html {
  const points = model.events
    .filter((e) => typeof e.prediction_error === 'number')
    .map((e) => ({ at: e.ts, value: e.prediction_error as number, label: e.tool_name ?? e.kind }));
  const shown = model.events.slice(-SHOWN_EVENTS).reverse();
  return html`<h1>Observations</h1>
<nav aria-label="Time range" class="ranges">${(Object.keys(RANGES) as Range[]).map(
    (r) =>
      html`<a href="/observations?range=${r}"${r === model.range ? html` aria-current="true"` : ''}>${r === 'all' ? 'all' : `last ${r}`}</a> `,
  )}</nav>
<form class="search card" role="search" method="get" action="/observations">
<input type="hidden" name="range" value="${model.range}">
<div class="field grow"><label for="q">Search what sessions did (the agent's <code>recall</code> with <code>source: events</code>)</label>
<input id="q" name="q" type="search" value="${model.q}" placeholder="a tool, a command, an error, a reflection…" autocomplete="off"></div>
<button type="submit">Search</button></form>
${model.q === '' ? '' : searchResults(model, now)}
<section class="card" aria-labelledby="plot-heading"><h2 id="plot-heading">Prediction error</h2>
<p class="muted">How far each result diverged from what the agent expected before the call (0 as expected, 1 contradicted); the protocol says stop above ${STOP_LINE}.</p>
${errorPlot(points, { from: model.from, to: model.to }, STOP_LINE)}
<details><summary>The ${points.length} plotted value(s) as a table</summary><table><thead><tr><th scope="col">When</th><th scope="col">Tool</th><th scope="col">Error</th></tr></thead><tbody>${points.map(
    (p) =>
      html`<tr><td>${timeTag(p.at, now)}</td><td><code>${p.label}</code></td><td>${p.value.toFixed(2)}</td></tr>`,
  )}</tbody></table></details>
</section>
<section class="card" aria-labelledby="surprises"><h2 id="surprises">Surprises not yet reflected on</h2>
${
  model.surprises.length === 0 && model.uncited.length === 0
    ? html`<p>None: every observation above the stop line has been reflected on.</p>`
    : html`${
        model.surprises.length > 0
          ? html`<p>The next packet names these (offered by the Stop hook; a <code>reflect</code> citing one takes it off):</p><ul data-testid="surprises">${model.surprises.map(
              (s) =>
                html`<li><code>${s.tool}</code> ${s.prediction_error.toFixed(2)} ${timeTag(s.at, now)}: expected “${clipText(s.expected, 120)}”, got “${clipText(s.outcome, 120)}” <span class="muted">${s.event_id}</span></li>`,
            )}</ul>`
          : ''
      }${
        model.uncited.length > 0
          ? html`<p>Above the stop line in this range, not cited by a reflection:</p><ul>${model.uncited.map(
              (e) =>
                html`<li>${timeTag(e.ts, now)} ${what(e)} ${pe(e)} <span class="muted">${e.id}</span></li>`,
            )}</ul>`
          : ''
      }`
}
</section>
<section class="card" aria-labelledby="cautions"><h2 id="cautions">Cautions that fired</h2>
${
  model.cautions.length === 0
    ? html`<p>No caution fired in this range. A feedback or caution memory with <code>applies_to</code> fires in the tool hooks before a matching call.</p>`
    : html`<table data-testid="cautions"><thead><tr><th scope="col">When</th><th scope="col">Memory</th><th scope="col">Call</th><th scope="col">Asked</th><th scope="col">What the agent did next</th></tr></thead><tbody>${model.cautions.map(
        (c) =>
          html`<tr><td>${timeTag(c.use.ts, now)}</td><td>${c.use.files.map(
            (f) => html`<a href="/memory/m/${encodeURIComponent(f)}">${f}</a> `,
          )}</td><td><code>${c.use.tool ?? ''}</code>${c.use.host ? html` <span class="muted">${c.use.host}</span>` : ''}</td><td>${c.use.on_match ?? 'warn'}</td><td>${afterCaution(c)}</td></tr>`,
      )}</tbody></table>`
}
</section>
<section class="card" aria-labelledby="stream"><h2 id="stream">Event stream</h2>
<p class="muted">${model.matched} event(s) in range${model.matched > shown.length ? `, the newest ${shown.length} shown` : ''}${
    model.skippedLines > 0 ? `; ${model.skippedLines} unreadable line(s) skipped` : ''
  }. Newest first.</p>
${
  shown.length === 0
    ? html`<p>No event in this range. Events come from the agent's <code>observe</code>/<code>reflect</code> and from the hosts' tool hooks.</p>`
    : html`<div class="scroll"><table data-testid="events"><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Prediction error</th></tr></thead><tbody>${shown.map(
        (e) =>
          html`<tr id="ev-${e.id}"><td>${timeTag(e.ts, now)}</td><td>${who(e)}</td><td>${what(e)}</td><td>${pe(e)}</td></tr>`,
      )}</tbody></table></div>`
}
</section>`;
}
