import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { contentTerms, normalizeTerm, tokenize } from '../../core/index.js';
import { whenWords } from './dates.js';
import { MAX_MEMORY_BYTES, type MemoryEntry, type MemoryProblem } from './entries.js';
import { bodyOf } from './fast-frontmatter.js';
import { IndexWriter, type SavedLines, saveSteps } from './index-save.js';
import { loadTermJson, type ManifestRow, readSavedIndex } from './persisted-index.js';
import type { MemorySnapshot, MemoryStore } from './store.js';
import { UnloadedTerms } from './unloaded-terms.js';

/** The searchable fields of one memory. */
export interface IndexedDoc {
  id: string;
  name: string;
  description: string;
  tags: string;
  body: string;
  /** Month, year and day the memory is about (see dates.ts). */
  when: string;
}

/** Where a LiveIndex is saved; without a cacheFile it lives in memory only. */
export interface LiveIndexOptions {
  /** Where the index is saved (under <home>/cache/). */
  cacheFile?: string | undefined;
}

const FIELDS = ['name', 'description', 'tags', 'body', 'when'] as const;
const MINI_OPTIONS = {
  idField: 'id',
  fields: [...FIELDS],
  storeFields: [] as string[],
  tokenize,
  processTerm: (term: string) => normalizeTerm(term) ?? null,
};
/** Bump when analysis (tokenizer, stemmer, fields) or the file layout changes: an old saved index is then ignored. */
const INDEX_FORMAT = 6;
/** Background work (loading the rest of a saved index, saving) starts after this long without a recall. */
const IDLE_MS = 500;
/** ... and runs in slices of this many milliseconds, so a recall arriving meanwhile waits at most one slice. */
const SLICE_MS = 8;

/**
 * The MiniSearch index of memory/, kept in step with the MemoryStore's snapshot and saved under
 * cache/ with a manifest (each file's mtime and size).
 *
 * Nothing here blocks a recall for long. A saved index is loaded lazily: the document tables at
 * once, a term's postings only when a query can reach it or a change adds to it; a long-running
 * process loads the rest in idle slices. Only files whose mtime or size moved are re-read.
 * Saving (index-save.ts) re-serialises only the terms whose postings changed (every other line
 * is written as it was read) and runs when recall has been idle for IDLE_MS, in slices; one-shot
 * commands close() the index after printing, and servers on shutdown.
 */
export class LiveIndex {
  mini = new MiniSearch<IndexedDoc>(MINI_OPTIONS);
  /** The memories indexed (or skipped as bodyProblems), by file. */
  entries = new Map<string, MemoryEntry>();
  readonly bodyProblems = new Map<string, MemoryProblem>();
  filesRead = 0;
  private readonly store: MemoryStore;
  private readonly cacheFile: string | undefined;
  private readonly writer: IndexWriter | undefined;
  private loaded = false;
  private synced: MemorySnapshot | undefined;
  private manifest = new Map<string, { mtimeMs: number; size: number }>();
  /** What the saved file holds: its lines, the terms changed since, the discarded documents it mentions. */
  private readonly saved: SavedLines = { lines: new Map(), touched: new Set(), dead: 0 };
  /** Terms of `saved.lines` not yet loaded into `mini`. */
  private pending = new UnloadedTerms();
  private unsaved = false;
  /** Bumped by every change to the index; a save in slices restarts when it moves. */
  private generation = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private slice: NodeJS.Immediate | undefined;
  /** Background work under way, one slice per call; true when finished. */
  private job: (() => boolean) | undefined;

  constructor(store: MemoryStore, options: LiveIndexOptions = {}) {
    this.store = store;
    this.cacheFile = options.cacheFile;
    this.writer = options.cacheFile ? new IndexWriter(options.cacheFile) : undefined;
  }

  /** Brings the index up to date with memory/ and returns the snapshot it reflects. */
  refresh(): MemorySnapshot {
    const snapshot = this.store.snapshot();
    if (!this.loaded || snapshot !== this.synced) this.sync(snapshot);
    // Last: the first refresh's load() just filled `pending`, and a change left the index
    // unsaved; either is background work for the idle time.
    this.scheduleIdle();
    return snapshot;
  }

  /** Saved postings not loaded yet (a long-running process loads them in idle slices). */
  get unloadedTerms(): number {
    return this.pending.size;
  }

  private sync(snapshot: MemorySnapshot): void {
    if (!this.loaded) this.load();
    const current = new Map<string, MemoryEntry>();
    for (const entry of snapshot.entries) if (entry.type !== 'index') current.set(entry.file, entry);
    let changed = false;
    for (const file of [...this.manifest.keys()]) {
      if (current.has(file)) continue;
      this.discard(file);
      this.manifest.delete(file);
      this.bodyProblems.delete(file);
      changed = true;
    }
    for (const entry of current.values()) {
      const known = this.manifest.get(entry.file);
      if (known && known.mtimeMs === entry.mtimeMs && known.size === entry.size) continue;
      this.discard(entry.file);
      this.bodyProblems.delete(entry.file);
      const doc = this.readDoc(entry);
      if ('problem' in doc) this.bodyProblems.set(entry.file, doc);
      else this.add(doc);
      this.manifest.set(entry.file, { mtimeMs: entry.mtimeMs, size: entry.size });
      changed = true;
    }
    this.entries = current;
    this.synced = snapshot;
    if (changed) {
      this.generation++;
      this.unsaved = this.cacheFile !== undefined;
    }
  }

  /** Loads the postings a search for `terms` can visit (see UnloadedTerms). */
  reach(terms: string[]): void {
    for (const term of this.pending.reachable(terms)) this.loadPending(term);
  }

  /**
   * Writes unsaved changes to cache/ now and stops background work (one-shot commands after
   * printing, servers on shutdown). The index stays usable.
   */
  close(): void {
    this.pause();
    this.job = undefined;
    if (this.unsaved) this.saveJob(false)();
  }

  private load(): void {
    this.loaded = true;
    const read = this.cacheFile ? readSavedIndex(this.cacheFile, INDEX_FORMAT) : undefined;
    // Missing or damaged: the index is derived, so start empty and index from the files.
    if (!read) return;
    this.mini = MiniSearch.loadJS<IndexedDoc>({ ...read.tables, index: [] }, MINI_OPTIONS);
    this.saved.lines = read.lines;
    this.pending = new UnloadedTerms(read.lines.keys());
    this.saved.dead = read.dead;
    for (const [file, mtimeMs, size] of read.manifest) this.manifest.set(file, { mtimeMs, size });
  }

  private loadPending(term: string): void {
    this.pending.delete(term);
    loadTermJson(this.mini, term, this.saved.lines.get(term)!);
  }

  private add(doc: IndexedDoc): void {
    // A term's saved postings must be in memory before a document is added to them.
    for (const field of FIELDS) {
      for (const term of contentTerms(doc[field])) {
        if (this.pending.has(term)) this.loadPending(term);
        if (this.cacheFile) this.saved.touched.add(term);
      }
    }
    this.mini.add(doc);
  }

  private discard(file: string): void {
    if (!this.mini.has(file)) return;
    this.mini.discard(file);
    this.saved.dead++;
  }

  private readDoc(entry: MemoryEntry): IndexedDoc | MemoryProblem {
    this.filesRead++;
    let text: string;
    try {
      const buffer = readFileSync(join(this.store.memoryDir, entry.file));
      if (buffer.length > MAX_MEMORY_BYTES) return { file: entry.file, problem: 'too large' };
      if (buffer.includes(0)) return { file: entry.file, problem: 'binary content' };
      text = buffer.toString('utf8');
    } catch (error) {
      return { file: entry.file, problem: `unreadable: ${(error as NodeJS.ErrnoException).code ?? 'error'}` };
    }
    // The snapshot already parsed (and vetted) this file's frontmatter; only the body is new here.
    return {
      id: entry.file,
      name: entry.name,
      description: entry.description,
      tags: entry.tags.join(' '),
      body: bodyOf(text),
      when: whenWords(entry),
    };
  }

  /**
   * (Re)starts the idle countdown. Every recall comes through here: background work pauses (it
   * resumes where it stopped once recall has been idle IDLE_MS), so a recall waits at most for
   * the slice that was running when it arrived.
   */
  private scheduleIdle(): void {
    this.pause();
    if (this.writer?.busy) return; // it calls back when its write is done
    if (!this.job && this.pending.size === 0 && !this.unsaved) return;
    this.idleTimer = setTimeout(() => this.work(), IDLE_MS);
    this.idleTimer.unref();
  }

  private pause(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.slice) clearImmediate(this.slice);
    this.idleTimer = undefined;
    this.slice = undefined;
  }

  /** Runs one slice of background work (loading the rest of a saved index, then a save) and queues the next. */
  private work(): void {
    this.idleTimer = undefined;
    this.slice = undefined;
    this.job ??=
      this.pending.size > 0
        ? () => this.loadSlice()
        : this.unsaved && !this.writer?.busy
          ? this.saveJob(true)
          : undefined;
    if (!this.job) return;
    if (this.job()) this.job = undefined;
    // Not unref'd: an unref'd immediate does not stop the event loop from blocking in poll, so
    // the next slice would wait for unrelated I/O. (The idle timer is unref'd: an idle process
    // is not kept alive to start background work; close() stops it.)
    if (this.job || this.pending.size > 0 || (this.unsaved && !this.writer?.busy))
      this.slice = setImmediate(() => this.work());
  }

  /** Loads saved postings for SLICE_MS; true once none is left. */
  private loadSlice(): boolean {
    const until = performance.now() + SLICE_MS;
    for (const term of this.pending) {
      this.loadPending(term);
      if (performance.now() > until) break;
    }
    return this.pending.size === 0;
  }

  /**
   * A save, as a step to call until it returns true (see saveSteps). When `sliced` (idle time)
   * each step runs SLICE_MS, a change before the serialising is done abandons the save (a new
   * one follows), and the file is written asynchronously; otherwise (close) one step does all.
   */
  private saveJob(sliced: boolean): () => boolean {
    const generation = this.generation;
    const step = saveSteps(this.mini, this.saved, {
      format: INDEX_FORMAT,
      manifest: () => this.manifestRows(),
      unloadedTerms: this.pending.size,
      current: () => this.generation === generation,
      ...(sliced ? { sliceMs: SLICE_MS } : {}),
    });
    return () => {
      const chunks = step();
      if (chunks === false) return false;
      if (chunks) this.write(chunks, generation, sliced);
      return true;
    };
  }

  private write(chunks: string[], generation: number, async: boolean): void {
    const writer = this.writer!;
    const saved = () => {
      if (this.generation === generation) this.unsaved = false;
    };
    // Derived data: failing to save costs the next cold start time, not correctness.
    if (!async) {
      if (writer.writeNow(chunks)) saved();
      return;
    }
    writer.writeLater(chunks, (ok) => {
      // Failed: the changes stay unsaved, so close() (or the next recall's idle time) tries again.
      if (!ok) return;
      saved();
      this.scheduleIdle(); // for changes made while it was writing
    });
  }

  /** Problem files stay out of the manifest so they are retried (and reported) next time. */
  private manifestRows(): ManifestRow[] {
    const rows: ManifestRow[] = [];
    for (const [file, m] of this.manifest)
      if (!this.bodyProblems.has(file)) rows.push([file, m.mtimeMs, m.size]);
    return rows;
  }
}
