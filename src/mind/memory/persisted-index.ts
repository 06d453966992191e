import { closeSync, fstatSync, readFileSync } from 'node:fs';
import MiniSearch, { type Options } from 'minisearch';
import { writeFileAtomicallySync } from '../../core/index.js';
import { openForRanges, readRange } from './file-range.js';
import { TabList } from './tab-list.js';

/** [file, mtimeMs, size] of each indexed file when the index was saved. */
export type ManifestRow = [file: string, mtimeMs: number, size: number];

/** What toJSON() returns: MiniSearch's documented serialisation, the pair of loadJS()/loadJSON(). */
type IndexJs = ReturnType<MiniSearch['toJSON']>;
/** One term's postings as toJSON() writes them: field id -> (short document id -> term frequency). */
export type TermPostings = IndexJs['index'][number][1];
/** Everything toJSON() writes besides the postings and the documents: counts, fields, averages. */
export type IndexTables = Omit<IndexJs, 'index' | 'documentIds' | 'fieldLength'>;

/**
 * The saved documents (toJSON()'s documentIds and fieldLength), as line 2 holds them: the
 * document ids in an array indexed by short id (null where a short id is not in use), and the
 * field lengths in one flat array, `fields` per short id. Two arrays of plain values parse
 * several times faster than toJSON()'s two objects keyed by short id, and a one-shot recall
 * needs only the few documents its query reaches.
 */
export class SavedDocs {
  private readonly ids: readonly (string | null)[];
  private readonly lengths: readonly (number | null)[];
  private readonly fields: number;

  constructor(ids: readonly (string | null)[], lengths: readonly (number | null)[], fields: number) {
    this.ids = ids;
    this.lengths = lengths;
    this.fields = fields;
  }

  /** From toJSON()'s objects. */
  static of(js: Pick<IndexJs, 'documentIds' | 'fieldLength' | 'fieldIds'>): SavedDocs {
    const fields = Object.keys(js.fieldIds).length;
    const ids: (string | null)[] = [];
    const lengths: (number | null)[] = [];
    for (const short in js.documentIds) {
      const i = Number(short);
      while (ids.length < i) ids.push(null);
      ids[i] = String(js.documentIds[short]);
      const row = js.fieldLength[short] ?? [];
      for (let f = 0; f < fields; f++) lengths[i * fields + f] = row[f] ?? null;
    }
    for (let k = 0; k < ids.length * fields; k++) lengths[k] ??= null;
    return new SavedDocs(ids, lengths, fields);
  }

  /** The document id of a short id, undefined when none has it. */
  id(short: string | number): string | undefined {
    return this.ids[Number(short)] ?? undefined;
  }

  /** A document's field lengths, as toJSON() has them. */
  fieldLength(short: string | number): number[] {
    const at = Number(short) * this.fields;
    return this.lengths.slice(at, at + this.fields) as number[];
  }

  /** The short id of a document, or -1 (a scan of the ids). */
  shortOf(id: string): number {
    return this.ids.indexOf(id);
  }

  /** Every document's short id, by document id. */
  shortIds(): Map<string, string> {
    const map = new Map<string, string>();
    for (let i = 0; i < this.ids.length; i++) {
      const id = this.ids[i];
      if (id !== null && id !== undefined) map.set(id, String(i));
    }
    return map;
  }

  /** Short ids in use, as toJSON()'s keys (strings), in order. */
  *shorts(): IterableIterator<string> {
    for (let i = 0; i < this.ids.length; i++) if (this.ids[i] !== null) yield String(i);
  }

  /** toJSON()'s two objects. */
  toJs(): Pick<IndexJs, 'documentIds' | 'fieldLength'> {
    const documentIds: IndexJs['documentIds'] = {};
    const fieldLength: IndexJs['fieldLength'] = {};
    for (const short of this.shorts()) {
      documentIds[short] = this.ids[Number(short)];
      fieldLength[short] = this.fieldLength(short);
    }
    return { documentIds, fieldLength };
  }

  /** What line 2 holds of them. */
  toLine(): { ids: readonly (string | null)[]; lengths: readonly (number | null)[] } {
    return { ids: this.ids, lengths: this.lengths };
  }
}

/** A SavedIndexView's merge under way: the documents and postings of the instance it will load. */
interface Merge {
  documentIds: IndexJs['documentIds'];
  fieldLength: IndexJs['fieldLength'];
  index: Map<string, TermPostings>;
}

/**
 * The saved postings, one JSON text per term, read when asked for: from the file's bytes in
 * memory (a server), or straight from the file at the term's offset (a one-shot recall, which
 * reads the few postings its query reaches and nothing else).
 */
export class SavedLines {
  /** The terms, sorted (writeSnapshot sorts them), so found by bisection: no map of every term to build. */
  private readonly terms: TabList;
  /** Where term i's line starts, from the first line of postings; ends[i + 1] where it ends. */
  private readonly ends: readonly number[];
  private readonly start: number;

  constructor(
    terms: TabList,
    ends: readonly number[],
    start: number,
    private readonly read: (from: number, to: number) => string,
  ) {
    this.terms = terms;
    this.ends = ends;
    this.start = start;
  }

  get size(): number {
    return this.terms.length;
  }

  has(term: string): boolean {
    return this.terms.indexOf(term) >= 0;
  }

  keys(): IterableIterator<string> {
    return this.terms[Symbol.iterator]();
  }

  /** The terms, sorted. */
  sortedTerms(): TabList {
    return this.terms;
  }

  /** The term's postings as JSON, or undefined when the snapshot has no such term. */
  get(term: string): string | undefined {
    const i = this.terms.indexOf(term);
    // Each line ends with its newline, which JSON.parse ignores.
    return i < 0 ? undefined : this.read(this.start + this.ends[i]!, this.start + this.ends[i + 1]!);
  }
}

/**
 * The snapshot of the recall index on disk, in a form a process can use without loading all of it.
 *
 * Line 1 is a small JSON object: the format and the byte length of each of the next four lines.
 * Line 2 is MiniSearch's toJSON() without its postings (what BM25 needs besides them; its
 * documents as SavedDocs has them), line 3 the manifest, line 4 a JSON array of where each
 * term's postings line starts (from the first, and one more for where the last ends), line 5
 * the terms in sorted order separated by tabs (terms are words: no tab or newline survives the
 * tokenizer); every further line holds one term's postings as toJSON()'s `index` has them. Changes since are in
 * the change log beside it (index-log.ts). A reader parses a term's postings only when a query
 * can reach it or a change adds to it, and a one-shot reader skips the manifest and reads
 * postings at their offsets. Only MiniSearch's public serialisation is used: toJSON() to
 * write, loadJS()/loadJSAsync() (toJSON's pair) to load.
 */
export interface SavedIndex {
  /** Empty when read without it (readSavedIndexAt). */
  manifest: ManifestRow[];
  tables: IndexTables;
  docs: SavedDocs;
  /** term -> postings JSON, as on disk. */
  lines: SavedLines;
}

/** Line 1 of a snapshot. */
interface SnapshotHead {
  format: number;
  tables: number;
  manifest: number;
  offsets: number;
  terms: number;
}

/** Line 2 of a snapshot. */
type SnapshotTables = IndexTables & { ids: (string | null)[]; lengths: (number | null)[] };

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

/** Reads a snapshot whole, or undefined when there is none, it is damaged, or of another format. */
export function readSavedIndex(file: string, format: number): SavedIndex | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  return parseSnapshot(
    format,
    bytes.length,
    (from, to) => bytes.toString('utf8', from, to),
    (from, to) => bytes.toString('utf8', from, to),
    true,
  );
}

/**
 * Reads a snapshot's tables and terms only, its postings later at their offsets (through the
 * open file, which stays open for them until the process ends): what a one-shot recall reads.
 * Undefined as readSavedIndex.
 */
export function readSavedIndexAt(file: string, format: number): SavedIndex | undefined {
  const fd = openForRanges(file);
  if (fd === undefined) return undefined;
  try {
    const read = (from: number, to: number): string => readRange(fd, from, to);
    const saved = parseSnapshot(format, fstatSync(fd).size, read, read, false);
    if (!saved) closeSync(fd);
    return saved;
  } catch {
    closeSync(fd);
    return undefined;
  }
}

/** The longest line 1 a snapshot has (a format and three lengths). */
const HEAD_MAX = 256;

function parseSnapshot(
  format: number,
  size: number,
  read: (from: number, to: number) => string,
  readPostings: (from: number, to: number) => string,
  withManifest: boolean,
): SavedIndex | undefined {
  try {
    const first = read(0, Math.min(size, HEAD_MAX));
    const eol = first.indexOf('\n');
    if (eol < 0) return undefined;
    const head = JSON.parse(first.slice(0, eol)) as Partial<SnapshotHead>;
    if (
      head.format !== format ||
      !isLength(head.tables) ||
      !isLength(head.manifest) ||
      !isLength(head.offsets) ||
      !isLength(head.terms)
    )
      return undefined;
    // Line 1 is ASCII: its characters are its bytes.
    const tablesAt = eol + 1;
    const manifestAt = tablesAt + head.tables;
    const offsetsAt = manifestAt + head.manifest;
    const termsAt = offsetsAt + head.offsets;
    const postingsAt = termsAt + head.terms;
    const { ids, lengths, ...tables } = JSON.parse(read(tablesAt, manifestAt)) as SnapshotTables;
    const manifest = withManifest ? (JSON.parse(read(manifestAt, offsetsAt)) as ManifestRow[]) : [];
    const ends = JSON.parse(read(offsetsAt, termsAt)) as number[];
    const terms = new TabList(read(termsAt, postingsAt - 1));
    const fields = Object.keys(tables.fieldIds).length;
    if (!Array.isArray(ids) || !Array.isArray(lengths) || lengths.length !== ids.length * fields)
      return undefined;
    // A file cut short (a full disk) must not pass for a complete index with missing postings.
    if (
      postingsAt + ends[terms.length]! !== size ||
      ends.length !== terms.length + 1 ||
      !Array.isArray(manifest)
    )
      return undefined;
    const docs = new SavedDocs(ids, lengths, fields);
    return { manifest, tables, docs, lines: new SavedLines(terms, ends, postingsAt, readPostings) };
  } catch {
    return undefined;
  }
}

function isLength(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n > 0;
}

/** An index of a whole snapshot, every posting loaded. */
export function fromSnapshot<T>(saved: SavedIndex, options: Options<T>): MiniSearch<T> {
  const index: IndexJs['index'] = [];
  const docs = saved.docs.toJs();
  for (const term of saved.lines.keys()) {
    const live = livePostings(JSON.parse(saved.lines.get(term)!) as TermPostings, docs.documentIds);
    if (live) index.push([term, live]);
  }
  // The averages are copied: the instance updates them in place as documents come and go.
  const averageFieldLength = [...saved.tables.averageFieldLength];
  return MiniSearch.loadJS({ ...saved.tables, ...docs, averageFieldLength, index, dirtCount: 0 }, options);
}

/** Lookups of a saved document's short id by scanning the ids, before a map of them is made. */
const SHORT_ID_SCANS = 32;

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
  private readonly docs: SavedDocs;
  private readonly lines: SavedLines;
  private readonly parsed = new Map<string, TermPostings>();
  /** Saved document id -> its short id in the snapshot, made when first needed (has, discard). */
  private shortIds: Map<string, string> | undefined;
  /** Short ids of saved documents discarded since. */
  private readonly discarded = new Set<string>();
  private readonly options: Options<T>;

  constructor(saved: SavedIndex, options: Options<T>) {
    this.tables = saved.tables;
    this.docs = saved.docs;
    this.lines = saved.lines;
    this.options = options;
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

  /**
   * The short id of a saved document, if any. The first few are looked up in the document list
   * itself (a one-shot recall replays a short log: a map of every document would cost it more
   * than the lookups); a process that asks more often gets the map.
   */
  private savedShortId(id: string): string | undefined {
    if (!this.shortIds && ++this.lookups > SHORT_ID_SCANS) this.shortIds = this.docs.shortIds();
    if (this.shortIds) return this.shortIds.get(id);
    const short = this.docs.shortOf(id);
    return short < 0 ? undefined : String(short);
  }

  private lookups = 0;

  /** Saved terms whose postings are not parsed yet. */
  get unparsed(): number {
    return this.lines.size - this.parsed.size;
  }

  has(id: string): boolean {
    if (this.overlay.has(id)) return true;
    const short = this.savedShortId(id);
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
      const short = this.savedShortId(id);
      if (this.overlay.has(id)) drop.push(id);
      else if (short !== undefined && !this.discarded.has(short)) bring.push(short);
    }
    if (bring.length > 0) {
      // The overlay takes the saved documents in (their field lengths) to discard them as the whole index would.
      const js = this.overlay.toJSON();
      for (const short of bring) {
        js.documentIds[short] = this.docs.id(short);
        js.fieldLength[short] = this.docs.fieldLength(short);
        this.discarded.add(short);
        drop.push(this.docs.id(short)!);
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
    for (const short of this.docs.shorts()) {
      if (this.discarded.has(short)) continue;
      merged.documentIds[short] = this.docs.id(short);
      merged.fieldLength[short] = this.docs.fieldLength(short);
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
    for (const field in postings) {
      for (const short in postings[field]) {
        if (this.docs.id(short) === undefined || this.discarded.has(short)) return false;
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
    const postings = this.postings(term);
    // Copied only when a saved posting is added: the overlay's postings are shared between merges.
    let into: TermPostings | undefined;
    for (const field in postings) {
      const docs = postings[field]!;
      let kept: Record<string, number> | undefined;
      for (const short in docs) {
        const id = this.docs.id(short);
        if (id === undefined || this.discarded.has(short)) continue;
        merged.documentIds[short] = id;
        merged.fieldLength[short] = this.docs.fieldLength(short);
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

/** Writes `mini` (every posting loaded) as a snapshot (see SavedIndex): atomically, temp file and rename. */
export function writeSnapshot<T>(
  file: string,
  format: number,
  mini: MiniSearch<T>,
  manifest: ManifestRow[],
): void {
  const { index, documentIds, fieldLength, ...rest } = mini.toJSON();
  const docs = SavedDocs.of({ documentIds, fieldLength, fieldIds: rest.fieldIds });
  const tables: SnapshotTables = { ...rest, ...docs.toLine() } as SnapshotTables;
  // Sorted, so a reader can find a term, and a prefix's terms, by bisection.
  index.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const postings = index.map(([, data]) => `${JSON.stringify(data)}\n`);
  const ends = [0];
  for (const line of postings) ends.push(ends[ends.length - 1]! + Buffer.byteLength(line));
  const lines = [
    JSON.stringify(tables),
    JSON.stringify(manifest),
    JSON.stringify(ends),
    TabList.join(index.map(([term]) => term)),
  ].map((l) => `${l}\n`);
  const [tablesLine, manifestLine, offsetsLine, termsLine] = lines.map((l) => Buffer.byteLength(l));
  const head: SnapshotHead = {
    format,
    tables: tablesLine!,
    manifest: manifestLine!,
    offsets: offsetsLine!,
    terms: termsLine!,
  };
  writeFileAtomicallySync(file, [`${JSON.stringify(head)}\n`, ...lines, ...postings].join(''));
}
