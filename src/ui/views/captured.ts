/**
 * Captured: what capture made of the last sessions. Each captured memory beside the words it
 * came from (its evidence, quoted from the transcript); the proposed ones (review mode) with
 * Accept and Reject, through the same functions as `firstlight memory review`; the curator's
 * budget and today's use; the last captures with what each wrote, proposed and skipped.
 */
import { type CaptureStatus, captureStatus, listProposed, type Proposed } from '../../capture/index.js';
import { parseFrontmatter, readTextIfExists } from '../../core/index.js';
import type { UiContext } from '../context.js';
import { type Html, html, timeTag } from '../html.js';
import { memoryHref } from './memory.js';

/** Captured memories listed at most (newest first). */
const SHOWN = 30;

export interface CapturedMemory {
  name: string;
  type: string;
  file: string;
  description: string;
  evidence: string[];
  session: string | null;
  at: string | undefined;
}

export interface CapturedModel {
  status: CaptureStatus;
  proposed: Proposed[];
  kept: CapturedMemory[];
}

export function capturedModel(context: UiContext): CapturedModel {
  const now = context.clock();
  const dir = context.mind.paths.memory;
  const entries = context.mind.memory
    .snapshot()
    .entries.filter((e) => e.fields.source === 'capture' && e.fields.status !== 'proposed')
    .sort((a, b) => b.mtimeMs - a.mtimeMs)
    .slice(0, SHOWN);
  const kept = entries.map((e): CapturedMemory => {
    const data = parseFrontmatter(readTextIfExists(`${dir}/${e.file}`) ?? '').data;
    return {
      name: e.name,
      type: e.type,
      file: e.file,
      description: e.description,
      evidence: Array.isArray(data.evidence) ? data.evidence.map(String) : [],
      session: typeof data.session === 'string' ? data.session : null,
      at: Number.isFinite(e.mtimeMs) ? new Date(e.mtimeMs).toISOString() : undefined,
    };
  });
  return {
    status: captureStatus(context.home, context.project, now, 10),
    proposed: listProposed(context.home),
    kept,
  };
}

function evidenceList(evidence: readonly string[]): Html {
  if (evidence.length === 0) return html`<p class="muted">No evidence recorded.</p>`;
  return html`<ul class="evidence">${evidence.map((e) => {
    const m = /^(transcript:L\d+|[\w-]+:[^ ]*)\s+(.*)$/s.exec(e);
    let words = m ? m[2]! : e;
    try {
      if (/^".*"$/s.test(words)) words = String(JSON.parse(words));
    } catch {
      // shown as written
    }
    return html`<li>${m ? html`<span class="muted">${m[1]!}</span> ` : ''}<q>${words}</q></li>`;
  })}</ul>`;
}

function proposedCard(p: Proposed, csrf: string): Html {
  const form = (action: string, label: string, cls: string) =>
    html`<form method="post" action="/captured/${action}" class="inline"><input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="name" value="${p.file}"><button type="submit"${cls ? html` class="${cls}"` : ''}>${label}</button></form>`;
  return html`<li class="card" data-testid="proposed"><h3>${p.name} <span class="muted">(${p.type})</span></h3>
<p>${p.description}</p>${p.applies_to.length > 0 ? html`<p class="muted">cautions before <code>${p.applies_to.join(', ')}</code> once accepted</p>` : ''}
<p>From${p.session ? html` session <code>${p.session}</code>` : ''}:</p>${evidenceList(p.evidence)}
${form('accept', 'Accept', '')} ${form('reject', 'Reject', 'danger')} <a href="${memoryHref(p.file)}">Edit</a></li>`;
}

function keptRow(m: CapturedMemory, now: Date): Html {
  return html`<li class="card" data-testid="captured"><h3><a href="${memoryHref(m.file)}">${m.name}</a> <span class="muted">(${m.type}${m.at ? html`, ${timeTag(m.at, now)}` : ''})</span></h3>
<p>${m.description}</p><p>From${m.session ? html` session <code>${m.session}</code>` : ''}:</p>${evidenceList(m.evidence)}</li>`;
}

export function capturedView(model: CapturedModel, csrf: string, now: Date): Html {
  const s = model.status;
  const cur = s.curator;
  return html`<h1>Captured</h1>
<section class="card" aria-labelledby="capture-settings"><h2 id="capture-settings">Capture</h2>
<p data-testid="capture-mode">Mode <strong>${s.mode}</strong>${s.off_by ? html` (off in <code>${s.off_by}</code>)` : ''}, at most ${s.max_per_session} memories a session; ${s.queued} session${s.queued === 1 ? '' : 's'} queued.</p>
<p data-testid="curator-budget">${
    cur.substrate
      ? html`Curator <code>${cur.substrate}</code>: <strong>${cur.today.used}</strong> of ${cur.daily_tokens} tokens used today (${cur.today.date}), at most ${cur.session_tokens} a session.${
          cur.days.length > 0
            ? html` Last days: ${cur.days.map((d) => `${d.date} ${d.used}`).join(', ')}.`
            : ''
        }`
      : html`No curator (stage 2 is off until <code>capture.curator.substrate</code> is set); stage 1 needs no model.`
  }</p>
</section>
<section aria-labelledby="proposed"><h2 id="proposed">Proposed (${model.proposed.length})</h2>
${
  model.proposed.length === 0
    ? html`<p class="muted">Nothing waits for review${s.mode === 'review' ? '' : html` (with <code>capture.mode: review</code>, captured memories wait here until accepted)`}.</p>`
    : html`<ul class="cards">${model.proposed.map((p) => proposedCard(p, csrf))}</ul>`
}
</section>
<section aria-labelledby="kept"><h2 id="kept">Captured memories (${model.kept.length})</h2>
${
  model.kept.length === 0
    ? html`<p class="muted">None yet.</p>`
    : html`<ul class="cards">${model.kept.map((m) => keptRow(m, now))}</ul>`
}
</section>
<section class="card" aria-labelledby="last"><h2 id="last">Last captures</h2>
${
  s.last.length === 0
    ? html`<p class="muted">No session captured yet.</p>`
    : html`<table data-testid="last-captures"><thead><tr><th scope="col">When</th><th scope="col">Session</th><th scope="col">Host</th><th scope="col">Status</th><th scope="col">Wrote</th><th scope="col">Proposed</th><th scope="col">Skipped</th><th scope="col">Tokens</th><th scope="col">Curator</th></tr></thead><tbody>${s.last.map(
        (r) =>
          html`<tr><td>${timeTag(r.at, now)}</td><td><code>${r.session}</code></td><td>${r.host}</td><td>${r.status}${r.why ? html` <span class="muted">${r.why}</span>` : ''}</td><td>${r.wrote}</td><td>${r.proposed}</td><td>${r.skipped}</td><td>${r.tokens ?? '—'}</td><td>${r.curator ? html`${r.curator.status}${r.curator.why ? html` <span class="muted">${r.curator.why}</span>` : ''}` : '—'}</td></tr>`,
      )}</tbody></table>`
}
</section>`;
}
