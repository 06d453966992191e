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

/** A SavedIndexView's merge under way: the documents and postings of the instance it will load. */
interface Merge {
  documentIds: IndexJs['documentIds'];
  fieldLength: IndexJs['fieldLength'];
  index: Map<string, TermPostings>;
}

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

/** An index of a whole snapshot, every posting loaded. */
export function fromSnapshot<T>(saved: SavedIndex, options: Options<T>): MiniSearch<T> {
  const index: IndexJs['index'] = [];
  for (const [term, json] of saved.lines) {
    const live = livePostings(JSON.parse(json) as TermPostings, saved.tables.documentIds);
    if (live) index.push([term, live]);
  }
  // The averages are copied: the instance updates them in place as documents come and go.
  const averageFieldLength = [...saved.tables.averageFieldLength];
  return MiniSearch.loadJS({ ...saved.tables, averageFieldLength, index, dirtCount: 0 }, options);
}

/**
 * A saved index used without loading it. The snapshot's postings stay lines, each parsed the
 * first time a query reaches it; what changed since lives in `overlay`, a small MiniSearch
 * holding the documents added since, the saved documents discarded since (brought in to be
 * discarded, so MiniSearch updates the document count and average field lengths as it would in
 * the whole index), and those index-wide figures. A query runs on a throwaway instance loaded
 * (loadJS) with the overlay plus the saved postings it can reach and the saved documents they
 * name: what it reads of the whole index is exactly that, so it scores as the whole index
 * would, at a cost that grows with the postings reached rather than with the index. (Loading a
 * new whole-index instance per query cost 8 to 20 ms at 10,000 memories: the document tables
 * alone take 8.) Postings of discarded documents are left out, as a fresh index would have them.
 */
export class SavedIndexView<T> {
  private overlay: MiniSearch<T>;
  /** The overlay's serialisation (see overlayState), until it changes. */
  private overlayCache: { js: IndexJs; index: Map<string, TermPostings> } | undefined;
  private readonly tables: IndexTables;
  private readonly lines: ReadonlyMap<string, string>;
  private readonly parsed = new Map<string, TermPostings>();
  /** Saved document id -> its short id in the snapshot. */
  private readonly savedShortId = new Map<string, string>();
  /** Short ids of saved documents discarded since. */
  private readonly discarded = new Set<string>();
  private readonly options: Options<T>;

  constructor(saved: SavedIndex, options: Options<T>) {
    this.tables = saved.tables;
    this.lines = saved.lines;
    this.options = options;
    for (const [short, id] of Object.entries(saved.tables.documentIds))
      this.savedShortId.set(String(id), short);
    // The averages are copied: loadJS keeps the array it is given, and the overlay's add() and
    // discard() update it in place, which would change the saved index under other readers.
    this.overlay = MiniSearch.loadJS(
      {
        ...saved.tables,
        averageFieldLength: [...saved.tables.averageFieldLength],
        documentIds: {},
        fieldLength: {},
        storedFields: {},
        index: [],
        dirtCount: 0,
      },
      options,
    );
  }

  get documentCount(): number {
    return this.overlay.documentCount;
  }

  /** Saved terms whose postings are not parsed yet. */
  get unparsed(): number {
    return this.lines.size - this.parsed.size;
  }

  has(id: string): boolean {
    if (this.overlay.has(id)) return true;
    const short = this.savedShortId.get(id);
    return short !== undefined && !this.discarded.has(short);
  }

  add(doc: T): void {
    this.overlay.add(doc);
    this.overlayCache = undefined;
  }

  discard(id: string): void {
    this.discardAll([id]);
  }

  /** Discards documents of the index (those it does not hold are ignored), the saved ones in one rebuild of the overlay. */
  discardAll(ids: Iterable<string>): void {
    const bring: string[] = [];
    const drop: string[] = [];
    for (const id of ids) {
      const short = this.savedShortId.get(id);
      if (this.overlay.has(id)) drop.push(id);
      else if (short !== undefined && !this.discarded.has(short)) bring.push(short);
    }
    if (bring.length > 0) {
      // The overlay takes the saved documents in (their field lengths) to discard them as the whole index would.
      const js = this.overlay.toJSON();
      for (const short of bring) {
        js.documentIds[short] = this.tables.documentIds[short];
        js.fieldLength[short] = this.tables.fieldLength[short]!;
        this.discarded.add(short);
        drop.push(String(this.tables.documentIds[short]));
      }
      this.overlay = MiniSearch.loadJS(js, this.options);
    }
    for (const id of drop) this.overlay.discard(id);
    if (drop.length > 0) this.overlayCache = undefined;
  }

  /** Parses saved terms for about `ms`; true once every term is parsed. */
  parseFor(ms: number): boolean {
    const until = performance.now() + ms;
    let n = 0;
    for (const term of this.lines.keys()) {
      if (this.parsed.has(term)) continue;
      this.postings(term);
      if ((++n & 15) === 0 && performance.now() > until) return false;
    }
    return true;
  }

  /** A MiniSearch holding what a search for `savedTerms` (the saved terms it can reach) reads of the whole index. */
  forTerms(savedTerms: Iterable<string>): MiniSearch<T> {
    const merged = this.startMerge();
    for (const term of savedTerms) this.mergeTerm(merged, term);
    return MiniSearch.loadJS(this.finishMerge(merged), this.options);
  }

  /**
   * The whole index in one instance, built without blocking for long: the saved postings are
   * parsed in slices of `sliceMs` (a query arriving meanwhile waits for one), then loaded with
   * loadJSAsync. A saved term's parsed postings are handed to it as they are (loadJSAsync copies
   * them into its own maps) unless the overlay has the term too or they name a document that is
   * not live: copying every posting doubled the garbage of a load, and the collector's pauses
   * fell on the queries it was meant to spare. A change to the view meanwhile makes the result
   * stale: the caller checks.
   */
  async whole(sliceMs: number): Promise<MiniSearch<T>> {
    const { js, index: overlay } = this.overlayState();
    const merged: Merge = {
      documentIds: { ...js.documentIds },
      fieldLength: { ...js.fieldLength },
      index: new Map(overlay),
    };
    const { documentIds, fieldLength } = this.tables;
    for (const short in documentIds) {
      if (this.discarded.has(short)) continue;
      merged.documentIds[short] = documentIds[short]!;
      merged.fieldLength[short] = fieldLength[short]!;
    }
    const index: IndexJs['index'] = [];
    let until = performance.now() + sliceMs;
    let n = 0;
    for (const term of this.lines.keys()) {
      const postings = this.postings(term);
      if (!overlay.has(term) && this.allLive(postings)) index.push([term, postings]);
      else this.mergeTerm(merged, term);
      if ((++n & 15) === 0 && performance.now() > until) {
        await new Promise((resolve) => setImmediate(resolve));
        until = performance.now() + sliceMs;
      }
    }
    const finished = this.finishMerge(merged);
    return MiniSearch.loadJSAsync({ ...finished, index: [...index, ...finished.index] }, this.options);
  }

  /** Whether every document `postings` names is a saved document not discarded since. */
  private allLive(postings: TermPostings): boolean {
    const { documentIds } = this.tables;
    for (const field in postings) {
      for (const short in postings[field]) {
        if (documentIds[short] === undefined || this.discarded.has(short)) return false;
      }
    }
    return true;
  }

  private postings(term: string): TermPostings {
    let postings = this.parsed.get(term);
    if (!postings) {
      postings = JSON.parse(this.lines.get(term)!) as TermPostings;
      this.parsed.set(term, postings);
    }
    return postings;
  }

  /** The overlay's serialisation and its postings without those of documents it discarded. */
  private overlayState(): { js: IndexJs; index: Map<string, TermPostings> } {
    if (!this.overlayCache) {
      const js = this.overlay.toJSON();
      const index = new Map<string, TermPostings>();
      for (const [term, postings] of js.index) {
        const live = livePostings(postings, js.documentIds);
        if (live) index.set(term, live);
      }
      this.overlayCache = { js, index };
    }
    return this.overlayCache;
  }

  /** A merge begins with the overlay's documents and postings (copied as they are added to). */
  private startMerge(): Merge {
    const { js, index } = this.overlayState();
    return { documentIds: { ...js.documentIds }, fieldLength: { ...js.fieldLength }, index: new Map(index) };
  }

  /** Adds a saved term's postings, and the live saved documents they name, to a merge. */
  private mergeTerm(merged: Merge, term: string): void {
    if (!this.lines.has(term)) return;
    const { documentIds, fieldLength } = this.tables;
    const postings = this.postings(term);
    // Copied only when a saved posting is added: the overlay's postings are shared between merges.
    let into: TermPostings | undefined;
    for (const field in postings) {
      const docs = postings[field]!;
      let kept: Record<string, number> | undefined;
      for (const short in docs) {
        const id = documentIds[short];
        if (id === undefined || this.discarded.has(short)) continue;
        merged.documentIds[short] = id;
        merged.fieldLength[short] = fieldLength[short]!;
        if (!kept) {
          into ??= { ...merged.index.get(term) };
          kept = into[field] = { ...into[field] };
        }
        kept[short] = docs[short]!;
      }
    }
    if (into) merged.index.set(term, into);
  }

  private finishMerge(merged: Merge): IndexJs {
    const { js } = this.overlayState();
    return {
      ...js,
      documentIds: merged.documentIds,
      fieldLength: merged.fieldLength,
      // loadJS keeps this array, and add()/discard() on that instance would change it in place.
      averageFieldLength: [...js.averageFieldLength],
      index: [...merged.index],
      dirtCount: 0,
    };
  }
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
