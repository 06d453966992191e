/**
 * Sessions: per host, when each session started, whether it bootstrapped (firstlight's own
 * record), the SessionStart packets injected, its tool calls and the refused ones, and the last
 * words captured for it. Gathered from the files each part already writes; reads only.
 */
import { join } from 'node:path';
import { HOST_ADAPTERS, type HostId, isHostId, ledgerSessionName, listInjections } from '../../host/index.js';
import {
  type CognitionEvent,
  listEvents,
  readBootstrapRecord,
  readSessionHistory,
} from '../../mind/index.js';
import { readSelfState } from '../../resume/index.js';
import type { UiContext } from '../context.js';
import { clipText, type Html, html, timeTag } from '../html.js';

/** How far back the event store is read for sessions. */
const WINDOW_DAYS = 30;
const MAX_SESSIONS = 100;

export interface SessionRow {
  id: string;
  host: string | null;
  started: string | undefined;
  lastSeen: string | undefined;
  bootstrapped: { at: string; via: string } | null;
  injected: { source: string; at: string }[];
  calls: number;
  refused: { tool: string; reason: string; at: string }[];
  lastWords: { text: string; at: string; source: string; anchors: number } | null;
}

export function sessionsModel(context: UiContext): { hosts: [string, SessionRow[]][]; total: number } {
  const now = context.clock();
  const rows = new Map<string, SessionRow>();
  const row = (id: string): SessionRow => {
    let r = rows.get(id);
    if (!r) {
      r = {
        id,
        host: null,
        started: undefined,
        lastSeen: undefined,
        bootstrapped: null,
        injected: [],
        calls: 0,
        refused: [],
        lastWords: null,
      };
      rows.set(id, r);
    }
    return r;
  };
  const seen = (r: SessionRow, at: string) => {
    if (!r.lastSeen || at > r.lastSeen) r.lastSeen = at;
  };
  for (const start of readSessionHistory(context.home).sessions) {
    if (!start.session_id) continue;
    const r = row(start.session_id);
    if (!r.started || start.at < r.started) r.started = start.at;
    seen(r, start.at);
  }
  const since = new Date(now.getTime() - WINDOW_DAYS * 86_400_000);
  const events = listEvents(join(context.home, 'events'), { since, limit: 50_000 }).events;
  for (const e of events) {
    if (!e.session) continue;
    // A hook's event names a host session; the agent's own observe calls only add activity.
    if (e.source === 'hook') addEvent(e, row(e.session), seen);
    else if (rows.has(e.session)) seen(rows.get(e.session)!, e.ts);
  }
  const state = readSelfState(join(context.home, 'self-state.json'));
  if (state.status === 'ok') {
    for (const [id, capture] of Object.entries(state.state.sessions)) {
      const r = row(capture.session_id ?? id);
      r.lastWords = {
        text: capture.stream_tail,
        at: capture.captured_at,
        source: capture.source,
        anchors: capture.anchors.length,
      };
      seen(r, capture.captured_at);
    }
  }
  const byLedgerName = new Map([...rows.values()].map((r) => [ledgerSessionName(r.id), r]));
  for (const injection of listInjections(context.home)) {
    const r = byLedgerName.get(injection.session) ?? row(injection.session);
    r.injected.push({ source: injection.source, at: injection.at });
    seen(r, injection.at);
  }
  const newest = [...rows.values()]
    .sort((a, b) => ((a.lastSeen ?? '') < (b.lastSeen ?? '') ? 1 : -1))
    .slice(0, MAX_SESSIONS);
  for (const r of newest) {
    const record = readBootstrapRecord(context.home, r.id);
    if (record) r.bootstrapped = { at: record.at, via: record.via };
  }
  const hosts = new Map<string, SessionRow[]>();
  for (const r of newest) {
    const key = r.host ?? '';
    hosts.set(key, [...(hosts.get(key) ?? []), r]);
  }
  return { hosts: [...hosts], total: rows.size };
}

function addEvent(e: CognitionEvent, r: SessionRow, seen: (r: SessionRow, at: string) => void): void {
  seen(r, e.ts);
  if (e.host) r.host = e.host;
  r.calls++;
  if (e.outcome === 'denied') r.refused.push({ tool: e.tool_name ?? '', reason: e.error ?? '', at: e.ts });
}

function hostName(id: string): string {
  if (id === '') return 'Host not recorded';
  return isHostId(id) ? HOST_ADAPTERS[id as HostId].name : id;
}

function sessionRow(r: SessionRow, now: Date): Html {
  return html`<tr>
<th scope="row"><code>${r.id}</code></th>
<td data-label="Started">${timeTag(r.started ?? r.lastSeen, now)}</td>
<td data-label="Bootstrapped">${
    r.bootstrapped
      ? html`<span class="ok">✓ yes</span> <span class="muted">${r.bootstrapped.via}, ${timeTag(r.bootstrapped.at, now)}</span>`
      : html`<span class="bad">✗ no record</span>`
  }</td>
<td data-label="SessionStart">${r.injected.length === 0 ? '—' : r.injected.map((i) => i.source).join(', ')}</td>
<td data-label="Tool calls">${r.calls}${
    r.refused.length > 0
      ? html` <details><summary>${r.refused.length} refused</summary><ul>${r.refused.map(
          (x) => html`<li><code>${x.tool}</code> ${timeTag(x.at, now)}: ${clipText(x.reason, 300)}</li>`,
        )}</ul></details>`
      : ''
  }</td>
<td data-label="Last words">${
    r.lastWords
      ? html`<blockquote>${clipText(r.lastWords.text, 240)}</blockquote><p class="muted">${r.lastWords.source}, ${timeTag(r.lastWords.at, now)}${
          r.lastWords.anchors > 0 ? `, ${r.lastWords.anchors} anchor(s)` : ''
        }</p>`
      : '—'
  }</td>
</tr>`;
}

export function sessionsView(model: ReturnType<typeof sessionsModel>, now: Date): Html {
  return html`<h1>Sessions</h1>
<p class="lede">Per host: when each session started, whether it bootstrapped, the packets injected, its tool calls and refusals, and the last words captured. ${model.total} session(s) known; the newest ${MAX_SESSIONS} shown, tool calls from the last ${WINDOW_DAYS} days.</p>
${
  model.hosts.length === 0
    ? html`<p>No session recorded yet: sessions appear once a host runs with firstlight installed (<code>firstlight install HOST</code>) or an agent calls <code>bootstrap_session</code>.</p>`
    : model.hosts.map(
        ([host, rows]) => html`<section class="card" aria-labelledby="host-${host || 'none'}">
<h2 id="host-${host || 'none'}">${hostName(host)} <span class="muted">(${rows.length})</span></h2>
<div class="scroll"><table class="stack" data-testid="sessions-${host || 'none'}">
<thead><tr><th scope="col">Session</th><th scope="col">Started</th><th scope="col">Bootstrapped</th><th scope="col">SessionStart</th><th scope="col">Tool calls</th><th scope="col">Last words</th></tr></thead>
<tbody>${rows.map((r) => sessionRow(r, now))}</tbody></table></div></section>`,
      )
}`;
}
