import { readFileSync } from 'node:fs';
import MiniSearch, { type Options } from 'minisearch';
import { writeFileAtomicallySync } from '../../core/index.js';

/** [file, mtimeMs, size] of each indexed file when the index was saved. */
export type ManifestRow = [file: string, mtimeMs: number, size: number];

/** What toJSON() returns: MiniSearch's documented serialisation, the pair of loadJS()/loadJSON(). */
type IndexJs = ReturnType<MiniSearch['toJSON']>;
/** One term's postings as toJSON() writes them: field id -> (short document id -> term frequency). */
export type TermPostings = IndexJs['index'][number][1];
/** Everything toJSON() writes besides the postings: ids, field lengths, averages, dirt count. */
export type IndexTables = Omit<IndexJs, 'index'>;

/**
 * The snapshot of the recall index on disk, in a form a process can use without loading all of it.
 *
 * Line 1 is JSON: the format, the manifest, and MiniSearch's toJSON() without its postings (what
 * BM25 needs besides them). Changes since are in the change log beside it (index-log.ts). Every further line is one term of toJSON()'s `index`: `term<TAB>postings-json`.
 * A reader splits the file into lines but parses a term's postings only when a query can reach
 * it or a change adds to it. Only MiniSearch's public serialisation is used: toJSON() to write,
 * loadJS()/loadJSAsync() (toJSON's pair) to load.
 */
export interface SavedIndex {
  manifest: ManifestRow[];
  tables: IndexTables;
  /** term -> postings JSON, as on disk. */
  lines: Map<string, string>;
}

/** A file whose line 1 is a JSON object: that object and the whole text, or undefined when there is none. */
export function readHeaded(
  file: string,
): { head: Record<string, unknown>; text: string; eol: number } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const eol = text.indexOf('\n');
  if (eol < 0) return undefined;
  try {
    const head: unknown = JSON.parse(text.slice(0, eol));
    return typeof head === 'object' && head !== null ? { head: { ...head }, text, eol } : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a snapshot, or undefined when there is none, it is damaged, or of another format. */
export function readSavedIndex(file: string, format: number): SavedIndex | undefined {
  const read = readHeaded(file);
  // A file cut short (a full disk) must not pass for a complete index with missing postings.
  if (!read?.text.endsWith('\n')) return undefined;
  const { text, eol } = read;
  const head: { format?: unknown; manifest?: ManifestRow[]; tables?: IndexTables } = read.head;
  if (head.format !== format || !Array.isArray(head.manifest) || !head.tables) return undefined;
  const lines = new Map<string, string>();
  let at = eol + 1;
  while (at < text.length) {
    const end = text.indexOf('\n', at);
    const tab = text.indexOf('\t', at);
    if (tab > at && tab < end) lines.set(text.slice(at, tab), text.slice(tab + 1, end));
    at = end + 1;
  }
  return { manifest: head.manifest, tables: head.tables, lines };
}

/**
 * `mini` with the saved postings of `terms` (none of them in `mini` yet) added: a new instance,
 * loaded from mini.toJSON() plus those postings. Costs the document tables and the postings
 * already loaded, so a process loads a few terms this way and the rest at once (withAllAsync).
 * `dead`: the lines may name discarded documents (see livePostings), so they are left out.
 */
export function withTerms<T>(
  mini: MiniSearch<T>,
  lines: ReadonlyMap<string, string>,
  terms: Iterable<string>,
  options: Options<T>,
  dead: boolean,
): MiniSearch<T> {
  const js = withoutDirt(mini);
  for (const term of terms) {
    const postings = JSON.parse(lines.get(term)!) as TermPostings;
    const live = dead ? livePostings(postings, js.documentIds) : postings;
    if (live) js.index.push([term, live]);
  }
  return MiniSearch.loadJS(js, options);
}

/** An index of the saved tables and no postings (see withTerms). */
export function fromTables<T>(tables: IndexTables, options: Options<T>): MiniSearch<T> {
  return MiniSearch.loadJS({ ...tables, index: [] }, options);
}

/** An index of a whole snapshot, every posting loaded. */
export function fromSnapshot<T>(saved: SavedIndex, options: Options<T>): MiniSearch<T> {
  const index: IndexJs['index'] = [];
  for (const [term, json] of saved.lines) {
    const live = livePostings(JSON.parse(json) as TermPostings, saved.tables.documentIds);
    if (live) index.push([term, live]);
  }
  return MiniSearch.loadJS({ ...saved.tables, index, dirtCount: 0 }, options);
}

/** `mini` plus all of `parsed` (term postings, already live: see livePostings), loaded without blocking for long. */
export function withAllAsync<T>(
  mini: MiniSearch<T>,
  parsed: [string, TermPostings][],
  options: Options<T>,
): Promise<MiniSearch<T>> {
  const js = withoutDirt(mini);
  for (const entry of parsed) js.index.push(entry);
  return MiniSearch.loadJSAsync(js, options);
}

/** The ids of `mini`'s documents, short id -> id, as its postings name them. */
export function documentIdsOf<T>(mini: MiniSearch<T>): IndexJs['documentIds'] {
  return withoutDirt(mini).documentIds;
}

/** mini.toJSON() without the postings of discarded documents (discard() counts them as dirt). */
function withoutDirt<T>(mini: MiniSearch<T>): IndexJs {
  const js = mini.toJSON();
  if ((js.dirtCount ?? 0) === 0) return js;
  const index: IndexJs['index'] = [];
  for (const [term, postings] of js.index) {
    const live = livePostings(postings, js.documentIds);
    if (live) index.push([term, live]);
  }
  return { ...js, index, dirtCount: 0 };
}

/**
 * One term's postings without those of documents not in `ids` (discarded), or undefined when
 * none is left. MiniSearch's discard() leaves them to be dropped by the first search that meets
 * them, which until then counts them in the term's document frequency: a memory replaced since
 * the snapshot was written would skew the first recall's scores.
 */
export function livePostings(postings: TermPostings, ids: IndexJs['documentIds']): TermPostings | undefined {
  const kept: TermPostings = {};
  let any = false;
  for (const [field, docs] of Object.entries(postings)) {
    const live: Record<string, number> = {};
    let n = 0;
    for (const [doc, freq] of Object.entries(docs)) {
      if (!(doc in ids)) continue;
      live[doc] = freq;
      n++;
    }
    if (n === 0) continue;
    kept[field] = live;
    any = true;
  }
  return any ? kept : undefined;
}

/** Writes `mini` (every posting loaded) as a snapshot: atomically, temp file and rename. */
export function writeSnapshot<T>(
  file: string,
  format: number,
  mini: MiniSearch<T>,
  manifest: ManifestRow[],
): void {
  const { index, ...tables } = mini.toJSON();
  const parts = [`${JSON.stringify({ format, manifest, tables })}\n`];
  // Terms are words: no tab or newline survives the tokenizer.
  for (const [term, data] of index) parts.push(`${term}\t${JSON.stringify(data)}\n`);
  writeFileAtomicallySync(file, parts.join(''));
}
