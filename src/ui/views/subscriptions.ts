/**
 * The runtime service's live subscriptions, with what each one's backpressure policy did to the
 * events it was sent. A section of the Runtime view, and a page of its own
 * (`/runtime/subscriptions`) that an open Runtime page fetches to replace the section in place
 * when the service's listing changes.
 */
import { sessionAnchor } from '../handoff-graph.js';
import { ago, clockTag, type Html, html } from '../html.js';
import {
  BACKPRESSURE_COUNTS,
  COUNT_NAMES,
  type LiveSubscription,
  type ServiceStatus,
  SUBSCRIPTIONS_PATH,
} from '../runtime-service.js';
import { RUNTIME_POLL_MS } from '../runtime-watch.js';

/** What each count means, for the column headers' tooltips. */
const COUNT_TITLES: Readonly<Record<string, string>> = {
  received: 'events accepted',
  interpreted: 'interpretations run (each reads one event, or a batch under coalesce)',
  dropped: 'events dropped unread: pushed out of a full buffer, or pending at teardown',
  coalesced: 'events folded into another event’s interpretation (coalesce)',
  rejected: 'events refused because the queue was full (queue): 429 to the sender',
  queued: 'events waiting for an interpretation now',
  emitted: 'emissions written to the stream (one per channel per interpretation)',
};

/** Rows shown at most: a service with more open says how many more (the page stays light). */
const SHOWN = 100;

function row(s: LiveSubscription, now: Date): Html {
  return html`<tr data-subscription="${s.id}"><th scope="row"><code class="nowrap">${s.id}</code>
<br>${s.persona}${s.role ? html` <span class="muted">as ${s.role}</span>` : ''}${s.surface ? html` <span class="muted">· ${s.surface}</span>` : ''}
<br><a class="muted" href="/runtime#${sessionAnchor(s.session)}">session ${s.session}</a>${s.created ? html`<span class="muted">, opened <time datetime="${s.created}" title="${s.created}">${ago(s.created, now)}</time></span>` : ''}</th>
<td>${s.policy}${s.maxPending !== undefined ? html`<br><span class="muted nowrap">≤ ${s.maxPending} pending</span>` : ''}</td>
<td>${s.channels.join(', ')}<br><span class="muted">${s.participants.length > 0 ? s.participants.join(', ') : 'no participant yet'}</span></td>
${COUNT_NAMES.map((name) => {
  const n = s.counts[name];
  const pressed = BACKPRESSURE_COUNTS.includes(name) && n > 0;
  return html`<td class="num${pressed ? ' warn' : ''}" data-count="${name}">${n}</td>`;
})}</tr>`;
}

function body(service: ServiceStatus, now: Date): Html {
  switch (service.kind) {
    case 'unconfigured':
      return html`<p data-testid="service-status">Runtime service not configured: start <code>firstlight runtime serve</code> and open this page with <code>firstlight ui --runtime http://127.0.0.1:7822</code> to see its live subscriptions.</p>`;
    case 'unreachable':
      return html`<div class="notice notice-error" data-testid="service-status"><p>The runtime service at <code>${service.url}</code> is not reachable: ${service.why}.</p><p>Fix: start it (<code>firstlight runtime serve</code>), or open this page with the URL it prints (<code>--runtime</code>). This section updates by itself once it answers.</p></div>`;
    case 'refused':
      return html`<div class="notice notice-error" data-testid="service-status"><p>The runtime service at <code>${service.url}</code> answered ${service.status} <code>${service.code}</code> to <code>GET ${SUBSCRIPTIONS_PATH}</code>: ${service.message}</p><p>Fix: ${service.fix}.</p></div>`;
    case 'ok':
      if (service.subscriptions.length === 0)
        return html`<p data-testid="service-status">No live subscription at <code>${service.url}</code> (asked at ${clockTag(service.at.toISOString())} UTC).</p>`;
      return html`<p class="muted" data-testid="service-status">${service.subscriptions.length} live at <code>${service.url}</code>, asked at ${clockTag(service.at.toISOString())} UTC. Dropped, coalesced and rejected events are marked.</p>
<div class="scroll"><table class="subscriptions" data-testid="subscriptions"><caption class="sr-only">Live subscriptions and their backpressure counts</caption>
<thead><tr><th scope="col">Subscription</th><th scope="col">Policy</th><th scope="col">Channels <span class="muted">· participants</span></th>${COUNT_NAMES.map(
        (name) => html`<th scope="col" class="num" title="${COUNT_TITLES[name] ?? ''}">${name}</th>`,
      )}</tr></thead>
<tbody>${service.subscriptions.slice(0, SHOWN).map((s) => row(s, now))}</tbody></table></div>${
        service.subscriptions.length > SHOWN
          ? html`<p class="muted">And ${service.subscriptions.length - SHOWN} more: <code>GET ${service.url}${SUBSCRIPTIONS_PATH}</code> lists them all.</p>`
          : ''
      }`;
  }
}

/** The section, as the Runtime view and `/runtime/subscriptions` show it. */
export function subscriptionsSection(service: ServiceStatus, now: Date): Html {
  const live =
    service.kind === 'unconfigured'
      ? ''
      : html`<p class="muted">Counts as the service keeps them in memory; this section updates by itself, asking the service every ${RUNTIME_POLL_MS / 1000} s while the page is open.</p>`;
  return html`<section class="card" aria-labelledby="service" data-testid="service"><h2 id="service">Live subscriptions</h2>${live}${body(service, now)}</section>`;
}
