import { readFileSync } from 'node:fs';
import MiniSearch, { type Options } from 'minisearch';
import { writeFileAtomicallySync } from '../../core/index.js';

/** [file, mtimeMs, size] of each indexed file when the index was saved. */
export type ManifestRow = [file: string, mtimeMs: number, size: number];

type MiniJS = Parameters<typeof MiniSearch.loadJS>[0];
type Postings = MiniJS['index'][number][1];

/**
 * The recall index on disk, in a form a one-shot process can use without loading all of it.
 *
 * Line 1 is JSON: the format, the manifest and MiniSearch's document tables (ids, field
 * lengths, averages: what BM25 needs besides the postings). Every further line is one term:
 * `term<TAB>postings-json`. Loading reads the file and splits it into lines, but parses only the
 * postings of the terms a query can reach (the exact term, its prefix extensions, its fuzzy
 * neighbours), so `firstlight recall` at 10,000 memories does not rebuild a 10 MB index to read
 * a dozen posting lists. Scores equal the full index's: the document tables are complete, and
 * MiniSearch only ever visits the terms this selects.
 */
export class PersistedIndex<T> {
  readonly manifest: ManifestRow[];
  private readonly meta: Omit<MiniJS, 'index'>;
  private readonly raw = new Map<string, string>();
  private readonly loaded = new Map<string, Postings>();
  private readonly options: Options<T>;
  private mini: MiniSearch<T> | undefined;

  private constructor(
    manifest: ManifestRow[],
    meta: Omit<MiniJS, 'index'>,
    text: string,
    from: number,
    options: Options<T>,
  ) {
    this.manifest = manifest;
    this.meta = meta;
    this.options = options;
    let at = from;
    while (at < text.length) {
      let end = text.indexOf('\n', at);
      if (end < 0) end = text.length;
      const tab = text.indexOf('\t', at);
      if (tab > at && tab < end) this.raw.set(text.slice(at, tab), text.slice(tab + 1, end));
      at = end + 1;
    }
  }

  get documentCount(): number {
    return this.meta.documentCount;
  }

  /** Reads a saved index, or undefined when there is none or it is of another format. */
  static read<T>(file: string, format: number, options: Options<T>): PersistedIndex<T> | undefined {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
    const eol = text.indexOf('\n');
    try {
      const head = JSON.parse(eol < 0 ? text : text.slice(0, eol)) as {
        format?: number;
        manifest?: ManifestRow[];
        meta?: Omit<MiniJS, 'index'>;
      };
      if (head.format !== format || !Array.isArray(head.manifest) || !head.meta) return undefined;
      return new PersistedIndex(head.manifest, head.meta, text, eol < 0 ? text.length : eol + 1, options);
    } catch {
      return undefined;
    }
  }

  /** A MiniSearch holding every term `reach` accepts (plus those loaded before). */
  searchable(reach: (term: string) => boolean): MiniSearch<T> {
    let added = false;
    for (const [term, json] of this.raw) {
      if (this.loaded.has(term) || !reach(term)) continue;
      this.loaded.set(term, JSON.parse(json) as Postings);
      added = true;
    }
    if (added || !this.mini) this.mini = this.build(this.loaded);
    return this.mini;
  }

  /** The whole index, for a process that is about to change it. */
  full(): MiniSearch<T> {
    for (const [term, json] of this.raw)
      if (!this.loaded.has(term)) this.loaded.set(term, JSON.parse(json) as Postings);
    return this.build(this.loaded);
  }

  private build(terms: Map<string, Postings>): MiniSearch<T> {
    return MiniSearch.loadJS<T>({ ...this.meta, index: [...terms] } as MiniJS, this.options);
  }
}

/** Saves `mini` with its manifest in the layout PersistedIndex reads. */
export function writePersistedIndex<T>(
  file: string,
  format: number,
  manifest: ManifestRow[],
  mini: MiniSearch<T>,
): void {
  const { index, ...meta } = mini.toJSON();
  const parts = [JSON.stringify({ format, manifest, meta })];
  // Terms are words: no tab or newline survives the tokenizer, so one line per term is safe.
  for (const [term, postings] of index) parts.push(`${term}\t${JSON.stringify(postings)}`);
  writeFileAtomicallySync(file, `${parts.join('\n')}\n`);
}

/** Levenshtein distance, giving up (returning max + 1) once it must exceed `max`. */
export function editDistanceWithin(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const v = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      row.push(v);
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    prev = row;
  }
  return prev[b.length] as number;
}
