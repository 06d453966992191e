/**
 * One memory: its frontmatter and body, the edit form (the whole file, checked and saved by
 * the same code as `firstlight memory edit`), forget, and its history: when recall, observe,
 * reflect or a tool hook's caution put it in front of the agent.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { type MemoryUse, readMemoryFile, readMemoryText, readMemoryUses } from '../../mind/index.js';
import type { UiContext } from '../context.js';
import { type Html, html, timeTag } from '../html.js';
import { memoryHref } from './memory.js';

export interface MemoryDetail {
  file: string;
  frontmatter: Record<string, unknown>;
  body: string;
  /** The file's text now, and its hash: an edit is saved only onto the text it began from. */
  text: string;
  base: string;
  uses: MemoryUse[];
}

export function textHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Reads one memory, confined to memory/ (a name leaving it is refused by readMemoryFile). */
export function memoryDetail(context: UiContext, requested: string): MemoryDetail {
  const memoryDir = join(context.home, 'memory');
  const read = readMemoryFile(memoryDir, requested);
  const text = readMemoryText(memoryDir, read.file) ?? '';
  return {
    file: read.file,
    frontmatter: read.frontmatter,
    body: read.body,
    text,
    base: textHash(text),
    uses: readMemoryUses(context.home, read.file, { limit: 100 }),
  };
}

/** What the edit form shows after a refused save: the user's text and why. */
export interface EditProblem {
  text: string;
  message: string;
  hint?: string | undefined;
}

function value(v: unknown): string {
  if (Array.isArray(v)) return v.map(String).join(', ');
  if (v !== null && typeof v === 'object') return JSON.stringify(v);
  return String(v ?? '');
}

function useLine(use: MemoryUse, now: Date): Html {
  const flagged = use.flagged?.length ? ' as a cautionary flag' : '';
  const what =
    use.via === 'recall'
      ? html`recalled for “${use.query ?? ''}”`
      : use.via === 'caution'
        ? html`caution (<strong>${use.on_match ?? 'warn'}</strong>) before <code>${use.tool ?? ''}</code>${use.host ? ` on ${use.host}` : ''}`
        : use.via === 'observe'
          ? html`relevant${flagged} to observe(<code>${use.tool ?? ''}</code>)`
          : html`relevant to a reflection`;
  return html`<li>${timeTag(use.ts, now)} — ${what}${use.session ? html` <span class="muted">session ${use.session}</span>` : ''}${
    use.event ? html` <span class="muted">event ${use.event}</span>` : ''
  }</li>`;
}

export function memoryDetailView(detail: MemoryDetail, csrf: string, now: Date, problem?: EditProblem): Html {
  const name = typeof detail.frontmatter.name === 'string' ? detail.frontmatter.name : detail.file;
  const recalls = detail.uses.filter((u) => u.via === 'recall').length;
  const cautions = detail.uses.filter((u) => u.via === 'caution' || u.flagged?.includes(detail.file)).length;
  return html`<nav class="crumbs" aria-label="Breadcrumb"><a href="/memory">Memory</a> › ${name}</nav>
<h1>${name}</h1>
<section class="card" aria-labelledby="fields"><h2 id="fields">Frontmatter</h2>
<dl class="fields" data-testid="frontmatter">${Object.entries(detail.frontmatter).map(
    ([k, v]) => html`<dt>${k}</dt><dd>${value(v)}</dd>`,
  )}<dt>file</dt><dd><code>memory/${detail.file}</code></dd></dl>
</section>
<section class="card" aria-labelledby="body"><h2 id="body">Body</h2><pre class="text" data-testid="body">${detail.body.trim()}</pre></section>
<section class="card" aria-labelledby="edit"><h2 id="edit">Edit</h2>
${
  problem
    ? html`<div class="notice notice-error" role="alert" data-testid="edit-error"><p><strong>Not saved:</strong> ${problem.message}</p>${
        problem.hint ? html`<p>Fix: ${problem.hint}</p>` : ''
      }<p>Your text is kept below; the file on disk is unchanged.</p></div>`
    : ''
}
<form method="post" action="${memoryHref(detail.file)}/edit" data-guard-dirty${problem ? html` data-dirty="true"` : ''}>
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="base" value="${detail.base}">
<label for="text">The whole file: frontmatter between the <code>---</code> lines (name, type, description, tags, applies_to), then the body</label>
<textarea id="text" name="text" rows="${Math.min(30, Math.max(8, (problem?.text ?? detail.text).split('\n').length + 2))}" spellcheck="true">${problem?.text ?? detail.text}</textarea>
<p class="muted">Checked before it is saved, as <code>firstlight memory edit</code> checks it; a changed name or description is carried into MEMORY.md.</p>
<button type="submit">Save</button>
</form>
</section>
<section class="card" aria-labelledby="forget"><h2 id="forget">Forget</h2>
<form method="post" action="${memoryHref(detail.file)}/forget" class="inline">
<input type="hidden" name="_csrf" value="${csrf}">
<p>Moves the file to <code>memory/.trash/</code> and removes its MEMORY.md line; recall stops finding it. Restorable from the Memory view.</p>
<button type="submit" class="danger">Forget “${name}”</button>
</form>
</section>
<section class="card" aria-labelledby="history"><h2 id="history">History</h2>
<p>Recalled ${recalls} time${recalls === 1 ? '' : 's'}, raised as a caution ${cautions} time${cautions === 1 ? '' : 's'} (newest ${detail.uses.length} uses shown).</p>
${
  detail.uses.length === 0
    ? html`<p class="muted">Not put in front of the agent yet: recall, observe, reflect and the tool hooks' cautions log each time they do.</p>`
    : html`<ol class="history" data-testid="history">${detail.uses.map((u) => useLine(u, now))}</ol>`
}
</section>`;
}
