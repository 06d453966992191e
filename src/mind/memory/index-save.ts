import type MiniSearch from 'minisearch';
import {
  indexHeader,
  indexLine,
  type ManifestRow,
  removeQuietly,
  tablesOf,
  termJson,
  termsOf,
  writeIndexAsync,
  writeIndexSync,
} from './persisted-index.js';

/** Postings of discarded memories are dropped by a full rewrite once they are this share of the index. */
const DEAD_SHARE = 0.1;
/** The file goes to the writer in chunks of about this many characters. */
const CHUNK_CHARS = 256 * 1024;

/** What the saved index file holds, as a LiveIndex tracks it between saves. */
export interface SavedLines {
  /** term -> postings JSON as last read or written. */
  lines: Map<string, string>;
  /** Terms whose postings changed since `lines` was written. */
  touched: Set<string>;
  /** Discarded documents `lines` may still mention. */
  dead: number;
}

export interface SaveOptions {
  format: number;
  manifest: () => ManifestRow[];
  /** Saved postings not loaded yet: a purge rewrites every line, so it waits until there are none. */
  unloadedTerms: number;
  /** False once the index changed: a save not yet serialised is then abandoned. */
  current: () => boolean;
  /** Each step stops after this long (saves in idle time); without it one step does all. */
  sliceMs?: number;
}

/**
 * A save, as a step to call until it returns the file's content in chunks (or null: the index
 * changed before everything was serialised, and a new save follows); `false` means "call again".
 * The terms whose postings changed are serialised, every other line is written as it was read.
 * Once all are serialised, `saved` describes the index and the file's chunks are assembled.
 */
export function saveSteps<T>(
  mini: MiniSearch<T>,
  saved: SavedLines,
  options: SaveOptions,
): () => string[] | null | false {
  const tables = tablesOf(mini);
  const purge = options.unloadedTerms === 0 && saved.dead > Math.max(50, tables.documentCount * DEAD_SHARE);
  const todo = purge ? [...new Set([...saved.lines.keys(), ...termsOf(mini)])] : [...saved.touched];
  const fresh = new Map<string, string | undefined>();
  let i = 0;
  let lines: Iterator<[string, string]> | undefined;
  const chunks: string[] = [];
  let chunk = '';
  return () => {
    const until = options.sliceMs ? performance.now() + options.sliceMs : Number.POSITIVE_INFINITY;
    if (!lines) {
      if (!options.current()) return null;
      while (i < todo.length && performance.now() < until) {
        const term = todo[i++]!;
        fresh.set(term, termJson(mini, term, tables.documentIds));
      }
      if (i < todo.length) return false;
      // Everything serialised with no change in between: the lines now describe this index.
      commit(saved, fresh, purge);
      lines = saved.lines.entries();
      chunk = indexHeader(options.format, { manifest: options.manifest(), tables, dead: saved.dead });
    }
    for (let next = lines.next(); !next.done; next = lines.next()) {
      chunk += indexLine(next.value[0], next.value[1]);
      if (chunk.length < CHUNK_CHARS) continue;
      chunks.push(chunk);
      chunk = '';
      if (performance.now() > until) return false;
    }
    chunks.push(chunk);
    return chunks;
  };
}

function commit(saved: SavedLines, fresh: Map<string, string | undefined>, purge: boolean): void {
  for (const [term, json] of fresh) {
    if (json === undefined) saved.lines.delete(term);
    else saved.lines.set(term, json);
  }
  saved.touched.clear();
  if (purge) saved.dead = 0;
}

/**
 * Writes saves of one index file. A later save overtakes an asynchronous write still under way:
 * that write's temp file is removed and its rename never happens, whichever ends first.
 */
export class IndexWriter {
  private readonly file: string;
  /** Writes started; an asynchronous write renames its file only if it is still the latest. */
  private writes = 0;
  /** The temp file of an asynchronous write under way. */
  private writing: string | undefined;

  constructor(file: string) {
    this.file = file;
  }

  /** An asynchronous write is under way. */
  get busy(): boolean {
    return this.writing !== undefined;
  }

  /** Writes the file now; true when it is in place. */
  writeNow(chunks: string[]): boolean {
    this.overtake();
    try {
      writeIndexSync(this.file, chunks);
      return true;
    } catch {
      return false;
    }
  }

  /** Writes the file without blocking; `done(saved)` follows unless a later write overtook it. */
  writeLater(chunks: string[], done: (saved: boolean) => void): void {
    const seq = this.overtake();
    const temp = `${this.file}.${process.pid}.${seq}.tmp`;
    this.writing = temp;
    void writeIndexAsync(this.file, chunks, temp, () => seq === this.writes).then((saved) => {
      if (this.writing !== temp) return;
      this.writing = undefined;
      done(saved);
    });
  }

  private overtake(): number {
    if (this.writing) removeQuietly(this.writing); // its rename will not happen
    this.writing = undefined;
    return ++this.writes;
  }
}
