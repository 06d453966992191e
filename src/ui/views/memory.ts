/**
 * Memory: search through the same `recall` the agent uses (score and `match` shown), or list,
 * filtered by type, tag and `applies_to`; the forgotten memories with a restore button each.
 */
import { byCodeUnit, matchToolGlob } from '../../core/index.js';
import {
  inScope,
  listForgotten,
  MAX_K,
  type MemoryEntry,
  type MemoryProblem,
  matchesFacet,
  type TrashRecord,
} from '../../mind/index.js';
import type { UiContext } from '../context.js';
import { type Html, html, query, timeTag, urlPart } from '../html.js';

/** What the search form asks. */
export interface MemoryQuery {
  q: string;
  type: string;
  tag: string;
  /** A tool name (or part of a pattern): memories whose `applies_to` covers it. */
  appliesTo: string;
  page: number;
  /** How many recall hits a search shows (20, or up to recall's maximum when asked). */
  k: number;
  /** Every project's memories, not only this project's and the global ones the agent sees. */
  all: boolean;
}

export interface MemoryRow {
  file: string;
  name: string;
  type: string;
  description: string;
  tags: string[];
  appliesTo: string[];
  score?: number;
  match?: number;
  excerpt?: string;
}

export interface MemoryModel {
  query: MemoryQuery;
  searched: boolean;
  rows: MemoryRow[];
  /** Rows matching before paging (a listing), or recall's hits after the filters (a search). */
  total: number;
  pageSize: number;
  types: [string, number][];
  tags: string[];
  forgotten: TrashRecord[];
  skipped: MemoryProblem[];
  indexed: number;
  /** Recall had more hits than it was asked for: a link asks for up to its maximum. */
  more: boolean;
}

const PAGE = 50;
/** Search hits shown unless more are asked for: a person reads the first screen or two. */
const SEARCH_K = 20;

export function memoryQuery(params: URLSearchParams): MemoryQuery {
  const page = Number(params.get('page') ?? '1');
  return {
    q: (params.get('q') ?? '').trim().slice(0, 2000),
    type: (params.get('type') ?? '').trim(),
    tag: (params.get('tag') ?? '').trim(),
    appliesTo: (params.get('applies_to') ?? '').trim(),
    page: Number.isInteger(page) && page > 0 ? page : 1,
    k: params.get('k') === String(MAX_K) ? MAX_K : SEARCH_K,
    all: params.get('all_projects') === '1',
  };
}

/** Whether a memory's `applies_to` covers `tool`: a pattern matching the name, or naming it. */
function appliesTo(entry: MemoryEntry, tool: string): boolean {
  const wanted = tool.toLowerCase();
  return entry.appliesTo.some((pattern) => {
    if (pattern.toLowerCase().includes(wanted)) return true;
    const name = pattern.replace(/\(.*$/s, '');
    return name !== '' && matchToolGlob(tool, [name]) !== null;
  });
}

export function memoryModel(context: UiContext, q: MemoryQuery): MemoryModel {
  const snapshot = context.mind.memory.snapshot();
  // The agent's view by default: this project's memories and the global ones.
  const scope = q.all ? 'all' : context.mind.memoryScope();
  const entries = snapshot.entries.filter((e) => e.type !== 'index' && inScope(e, scope));
  const byFile = new Map(entries.map((e) => [e.file, e]));
  const keep = (e: MemoryEntry) =>
    (!q.type || e.type === q.type.toLowerCase()) &&
    (!q.tag || matchesFacet(e, { key: 'tag', value: q.tag.toLowerCase() })) &&
    (!q.appliesTo || appliesTo(e, q.appliesTo));
  const row = (e: MemoryEntry): MemoryRow => ({
    file: e.file,
    name: e.name,
    type: e.type,
    description: e.description,
    tags: e.tags,
    appliesTo: e.appliesTo,
  });
  let rows: MemoryRow[];
  let total: number;
  let indexed = entries.length;
  let skipped = snapshot.problems;
  let more = false;
  if (q.q !== '') {
    // One facet narrows recall itself; the others filter its hits.
    const facet = q.type ? `type:${q.type}` : q.tag ? `tag:${q.tag}` : undefined;
    const found = context.recall().recall(q.q, { k: q.k, scope, ...(facet ? { facet } : {}) });
    indexed = found.indexed;
    skipped = found.skipped;
    more = q.k < MAX_K && found.results.length === q.k;
    rows = [];
    for (const hit of found.results) {
      const entry = byFile.get(hit.file);
      if (entry && !keep(entry)) continue;
      rows.push({
        ...(entry
          ? row(entry)
          : { file: hit.file, name: hit.name, type: hit.type, description: '', tags: [], appliesTo: [] }),
        score: hit.score,
        match: hit.match,
        excerpt: hit.excerpt,
      });
    }
    total = rows.length;
  } else {
    const all = entries.filter(keep).sort((a, b) => byCodeUnit(a.name.toLowerCase(), b.name.toLowerCase()));
    total = all.length;
    rows = all.slice((q.page - 1) * PAGE, q.page * PAGE).map(row);
  }
  const typeCounts = new Map<string, number>();
  const tagCounts = new Map<string, number>();
  for (const e of entries) {
    typeCounts.set(e.type, (typeCounts.get(e.type) ?? 0) + 1);
    for (const t of e.tags) tagCounts.set(t, (tagCounts.get(t) ?? 0) + 1);
  }
  return {
    query: q,
    searched: q.q !== '',
    rows,
    total,
    pageSize: PAGE,
    types: [...typeCounts].sort((a, b) => b[1] - a[1] || byCodeUnit(a[0], b[0])),
    tags: [...tagCounts]
      .sort((a, b) => b[1] - a[1] || byCodeUnit(a[0], b[0]))
      .slice(0, 200)
      .map(([t]) => t),
    forgotten: listForgotten(context.home),
    skipped,
    indexed,
    more,
  };
}

export function memoryHref(file: string): string {
  return `/memory/m/${urlPart(file)}`;
}

function resultRow(r: MemoryRow, searched: boolean): Html {
  return html`<li class="result">
<h3><a href="${memoryHref(r.file)}">${r.name}</a></h3>
<p class="meta"><span class="tag type">${r.type}</span>${
    searched
      ? html` <span>score <strong>${r.score}</strong></span> <span>match <strong data-testid="match">${Math.round((r.match ?? 0) * 100)}%</strong></span>`
      : ''
  } <span class="muted">memory/${r.file}</span></p>
${r.excerpt ? html`<p class="excerpt">${r.excerpt}</p>` : r.description ? html`<p>${r.description}</p>` : ''}
${
  r.tags.length > 0 || r.appliesTo.length > 0
    ? html`<p class="meta">${r.tags.map((t) => html`<span class="tag">#${t}</span> `)}${r.appliesTo.map(
        (a) => html`<span class="tag applies">applies to <code>${a}</code></span> `,
      )}</p>`
    : ''
}
</li>`;
}

export function memoryView(model: MemoryModel, csrf: string, now: Date): Html {
  const q = model.query;
  const pages = Math.ceil(model.total / model.pageSize);
  const link = (page: number) =>
    `/memory${query({ type: q.type, tag: q.tag, applies_to: q.appliesTo, all_projects: q.all ? 1 : undefined, page: page > 1 ? page : undefined })}`;
  return html`<h1>Memory</h1>
<form class="search card" role="search" method="get" action="/memory" data-live-search>
<div class="field grow"><label for="q">Search (the agent's <code>recall</code>)</label>
<input id="q" name="q" type="search" value="${q.q}" placeholder="what are you looking for?" autocomplete="off" data-key="/"></div>
<div class="field"><label for="type">Type</label><select id="type" name="type"><option value="">any</option>${model.types.map(
    ([t, n]) => html`<option value="${t}"${t === q.type ? html` selected` : ''}>${t} (${n})</option>`,
  )}</select></div>
<div class="field"><label for="tag">Tag</label><input id="tag" name="tag" value="${q.tag}" list="tags" autocomplete="off"><datalist id="tags">${model.tags.map(
    (t) => html`<option value="${t}">`,
  )}</datalist></div>
<div class="field"><label for="applies_to">Applies to tool</label><input id="applies_to" name="applies_to" value="${q.appliesTo}" placeholder="Bash, git_push" autocomplete="off"></div>
<div class="field"><label><input type="checkbox" name="all_projects" value="1"${q.all ? html` checked` : ''}> All projects</label></div>
<div class="field"><button type="submit">Search</button></div>
</form>
<section aria-labelledby="results-heading">
<h2 id="results-heading" data-testid="results-heading">${
    model.searched
      ? `${model.total} result${model.total === 1 ? '' : 's'} for “${q.q}” (of ${model.indexed} memories indexed)`
      : `${model.total} memor${model.total === 1 ? 'y' : 'ies'}${pages > 1 ? `, page ${q.page} of ${pages}` : ''}`
  }</h2>
${model.rows.length === 0 ? html`<p>No memory matches.</p>` : html`<ol class="results" data-testid="results">${model.rows.map((r) => resultRow(r, model.searched))}</ol>`}
${
  model.more
    ? html`<p><a href="/memory${query({ q: q.q, type: q.type, tag: q.tag, applies_to: q.appliesTo, all_projects: q.all ? 1 : undefined, k: MAX_K })}">Show up to ${MAX_K} results</a></p>`
    : ''
}
${
  pages > 1 && !model.searched
    ? html`<nav aria-label="Pages" class="pager">${q.page > 1 ? html`<a href="${link(q.page - 1)}" rel="prev">Previous</a>` : ''} ${
        q.page < pages ? html`<a href="${link(q.page + 1)}" rel="next">Next</a>` : ''
      }</nav>`
    : ''
}
</section>
${
  model.skipped.length > 0
    ? html`<section class="card warn" aria-labelledby="skipped"><h2 id="skipped">Skipped files</h2><ul>${model.skipped.map(
        (s) => html`<li><code>memory/${s.file}</code>: ${s.problem}</li>`,
      )}</ul></section>`
    : ''
}
<section class="card" aria-labelledby="forgotten"><h2 id="forgotten">Forgotten (${model.forgotten.length})</h2>
${
  model.forgotten.length === 0
    ? html`<p>Nothing forgotten. Forgetting moves a memory to <code>memory/.trash/</code>; it can be restored from here.</p>`
    : html`<ul class="plain" data-testid="forgotten">${model.forgotten.map(
        (r) => html`<li><form method="post" action="/memory/restore" class="inline">
<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="name" value="${r.trashed_as}">
<strong>${r.name}</strong> <span class="tag type">${r.type}</span> forgotten ${timeTag(r.forgotten_at, now)}
<button type="submit" aria-label="Restore ${r.name}">Restore</button></form></li>`,
      )}</ul>`
}
</section>
<p class="muted">Memories are files in <code>memory/</code>, one a file; forgetting moves one to <code>memory/.trash/</code>.</p>`;
}
