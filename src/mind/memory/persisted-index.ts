import { readFileSync, renameSync, unlinkSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import type MiniSearch from 'minisearch';
import SearchableMap from 'minisearch/SearchableMap';
import { writeFileAtomicallySync } from '../../core/index.js';

/** [file, mtimeMs, size] of each indexed file when the index was saved. */
export type ManifestRow = [file: string, mtimeMs: number, size: number];

type MiniJS = Parameters<typeof MiniSearch.loadJS>[0];
/** What MiniSearch serialises besides the postings: ids, field lengths, averages. */
type IndexTables = Omit<MiniJS, 'index'>;

/** One term's postings inside MiniSearch: field id -> (short document id -> term frequency). */
type TermData = Map<number, Map<number, number>>;
interface Postings {
  get(term: string): TermData | undefined;
  set(term: string, data: TermData): unknown;
  keys(): Iterable<string>;
}

/**
 * MiniSearch keeps its postings in the protected `_index` and can only copy all of them at once
 * (toJSON() spends ~0.4 s on 10,000 memories). Reading and loading one term at a time is what
 * lets a one-shot process touch a few postings and a server save only what changed. Pinned by
 * test/unit/mind/recall-persistence.test.ts against toJSON()/loadJS().
 */
function postingsOf<T>(mini: MiniSearch<T>): Postings {
  return (mini as unknown as { _index: Postings })._index;
}

/** The index's terms (those loaded into it). */
export function termsOf<T>(mini: MiniSearch<T>): Iterable<string> {
  return postingsOf(mini).keys();
}

/**
 * One term's postings as the JSON toJSON() would write, without documents in `dead` (discarded,
 * not yet vacuumed). Undefined when nothing live remains.
 */
export function termJson<T>(
  mini: MiniSearch<T>,
  term: string,
  live: Record<string, unknown>,
): string | undefined {
  const data = postingsOf(mini).get(term);
  if (!data) return undefined;
  const fields: string[] = [];
  for (const [fieldId, freqs] of data) {
    const docs: string[] = [];
    for (const [doc, n] of freqs) if (String(doc) in live) docs.push(`"${doc}":${n}`);
    if (docs.length > 0) fields.push(`"${fieldId}":{${docs.join(',')}}`);
  }
  return fields.length > 0 ? `{${fields.join(',')}}` : undefined;
}

/** Loads one term's saved postings (termJson's output) into `mini`. */
export function loadTermJson<T>(mini: MiniSearch<T>, term: string, json: string): void {
  const data: TermData = new Map();
  for (const [fieldId, docs] of Object.entries(JSON.parse(json) as Record<string, Record<string, number>>)) {
    const freqs = new Map<number, number>();
    for (const [doc, n] of Object.entries(docs)) freqs.set(Number(doc), n);
    data.set(Number(fieldId), freqs);
  }
  postingsOf(mini).set(term, data);
}

/** The document tables of `mini`, without copying its postings. */
export function tablesOf<T>(mini: MiniSearch<T>): IndexTables {
  const inner = mini as unknown as { _index: unknown };
  const postings = inner._index;
  inner._index = new SearchableMap();
  try {
    const { index: _none, ...tables } = mini.toJSON();
    return tables;
  } finally {
    inner._index = postings;
  }
}

/**
 * The recall index on disk, in a form a process can use without loading all of it.
 *
 * Line 1 is JSON: the format, the manifest, how many discarded documents the postings may still
 * mention (`dead`), and MiniSearch's document tables (what BM25 needs besides the postings).
 * Every further line is one term: `term<TAB>postings-json`. A reader splits the file into lines
 * but parses the postings of a term only when a query can reach it or a change adds to it.
 */
export interface SavedIndex {
  manifest: ManifestRow[];
  tables: IndexTables;
  dead: number;
  /** term -> postings JSON, as on disk. */
  lines: Map<string, string>;
}

/** Reads a saved index, or undefined when there is none, it is damaged, or of another format. */
export function readSavedIndex(file: string, format: number): SavedIndex | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  // A file cut short (a full disk) must not pass for a complete index with missing postings.
  if (!text.endsWith('\n')) return undefined;
  const eol = text.indexOf('\n');
  let head: { format?: number; manifest?: ManifestRow[]; tables?: IndexTables; dead?: number };
  try {
    head = JSON.parse(text.slice(0, eol));
  } catch {
    return undefined;
  }
  if (head.format !== format || !Array.isArray(head.manifest) || !head.tables) return undefined;
  const lines = new Map<string, string>();
  let at = eol + 1;
  while (at < text.length) {
    const end = text.indexOf('\n', at);
    const tab = text.indexOf('\t', at);
    if (tab > at && tab < end) lines.set(text.slice(at, tab), text.slice(tab + 1, end));
    at = end + 1;
  }
  return { manifest: head.manifest, tables: head.tables, dead: head.dead ?? 0, lines };
}

/** Line 1 of a saved index (see SavedIndex), newline included. */
export function indexHeader(format: number, saved: Omit<SavedIndex, 'lines'>): string {
  const { manifest, tables, dead } = saved;
  return `${JSON.stringify({ format, manifest, dead, tables })}\n`;
}

/** One term's line. Terms are words: no tab or newline survives the tokenizer. */
export function indexLine(term: string, json: string): string {
  return `${term}\t${json}\n`;
}

/** Writes a saved index (header and lines, as chunks) atomically: temp file, fsync, rename. */
export function writeIndexSync(file: string, chunks: string[]): void {
  writeFileAtomicallySync(file, chunks.join(''));
}

/**
 * writeIndexSync without blocking the event loop. The rename happens only if `current()` still
 * says so when the data is on disk: a newer save started meanwhile wins, whichever ends first.
 * Resolves true when this write put the file in place; false when it failed or was overtaken.
 */
export async function writeIndexAsync(
  file: string,
  chunks: string[],
  temp: string,
  current: () => boolean,
): Promise<boolean> {
  try {
    await mkdir(dirname(file), { recursive: true });
    const handle = await open(temp, 'w');
    try {
      for (const chunk of chunks) {
        const bytes = Buffer.from(chunk);
        for (let at = 0; at < bytes.length; ) at += (await handle.write(bytes, at)).bytesWritten;
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (!current()) {
      unlinkSync(temp);
      return false;
    }
    renameSync(temp, file);
    return true;
  } catch {
    removeQuietly(temp);
    return false;
  }
}

export function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
