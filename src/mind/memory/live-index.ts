import { basename, dirname, extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import MiniSearch, { type SearchOptions, type SearchResult } from 'minisearch';
import { contentTerms, FileTooLargeError, packagePath, UnsafeFileError } from '../../core/index.js';
import {
  compact,
  compactSync,
  INDEX_FORMAT,
  type IndexPaths,
  lastEntries,
  type Manifest,
  MINI_OPTIONS,
  manifestOf,
  replay,
  rowsOf,
} from './compact.js';
import { whenWords } from './dates.js';
import { type MemoryEntry, type MemoryProblem, readMemoryText } from './entries.js';
import { bodyOf } from './fast-frontmatter.js';
import { appendLog, appendLogSync, type IndexedDoc, type LogEntry, logLines, readLog } from './index-log.js';
import { RACY_MS } from './overview.js';
import { readSavedIndex, SavedIndexView } from './persisted-index.js';
import type { RecallSource } from './recall-query.js';
import { STAMP_FILE, type StampedFiles, writeStamp } from './recall-stamp.js';
import { SavedTerms } from './saved-terms.js';
import type { MemorySnapshot, MemoryStore } from './store.js';

export type { IndexedDoc } from './index-log.js';

/** Where a LiveIndex is saved; without a cacheFile it lives in memory only. */
export interface LiveIndexOptions {
  /** Where the index's snapshot is saved (under <home>/cache/); its change log goes beside it (`.log`). */
  cacheFile?: string | undefined;
}

/** The memories a LiveIndex holds, by file. */
export interface EntryLookup {
  get(file: string): MemoryEntry | undefined;
  [Symbol.iterator](): Iterator<[string, MemoryEntry]>;
}

/** Background work (loading the rest of a saved index, saving) starts after this long without a recall. */
const IDLE_MS = 500;
/** ... and runs in slices of this many milliseconds, so a recall arriving meanwhile waits at most one slice. */
const SLICE_MS = 8;
/**
 * The log is folded into a new snapshot once it holds this share of the memories (and at least
 * COMPACT_MIN entries): a process starting on the snapshot loads the postings of every memory
 * the log names, so a long log slows every start; a compaction copies the whole index.
 */
const COMPACT_SHARE = 0.01;
const COMPACT_MIN = 32;

/**
 * The MiniSearch index of memory/, kept in step with the MemoryStore's snapshot and saved under
 * cache/ as a snapshot (persisted-index.ts) and an append-only change log beside it
 * (index-log.ts), each with the mtime and size of the files they hold.
 *
 * Only MiniSearch's public API is used (toJSON, loadJS/loadJSAsync, add, discard, search,
 * vacuum). A process starting on a snapshot does not load it: a SavedIndexView answers each
 * query from the postings it reaches (parsed on first reach) plus a small overlay of what
 * changed since; a long-running process parses the rest in idle slices and then loads the whole
 * index with loadJSAsync, which yields as it goes. The log is replayed on top (add/discard), and
 * only files whose mtime or size moved since are re-read. Saving appends the changed memories
 * to the log: a few lines, whatever the size of the index. Once the log is long, a compaction
 * folds it into a new snapshot: in a worker thread in servers, after printing in one-shot
 * commands (close()). Servers do their background work when recall has been idle for IDLE_MS,
 * in slices.
 *
 * MiniSearch rather than SQLite FTS5 through a WASM build: measured beside it at 10,000
 * memories, FTS5 ranked the held-out queries worse (R@5 0.715 against 0.794: its bm25() scores a
 * row, not each field) and answered 2 to 3 times slower (docs/memory.md has the figures).
 */
export class LiveIndex implements RecallSource {
  /** The whole index in memory: built from the files, or loaded from a snapshot once `saved` is done. */
  private mini = new MiniSearch<IndexedDoc>(MINI_OPTIONS);
  /** The saved snapshot in use instead of `mini` until it is loaded whole. */
  private saved: SavedIndexView<IndexedDoc> | undefined;
  /** The memories indexed (or skipped as bodyProblems), by file. */
  entries: EntryLookup = new Map<string, MemoryEntry>();
  readonly bodyProblems = new Map<string, MemoryProblem>();
  filesRead = 0;
  /** Background saves (log appends, compactions) that failed; their changes are kept for close(). */
  failedSaves = 0;
  private readonly store: MemoryStore;
  private readonly paths: IndexPaths | undefined;
  /** The stamp close() writes and the files it vouches for (recall-stamp.ts). */
  private readonly stamped: StampedFiles | undefined;
  /** When the store's snapshot this index reflects was asked for. */
  private syncedAt = 0;
  private loaded = false;
  /** A snapshot was found at load, or written since. */
  private snapshotFound = false;
  private synced: MemorySnapshot | undefined;
  private manifest: Manifest = new Map();
  /** The saved snapshot's terms, to find those a query can reach (fuzzy and prefix matches included). */
  private savedTerms = new SavedTerms();
  /** A loadJSAsync of the rest of the snapshot under way. */
  private loadingRest = false;
  /** Changes not yet in the log, the last one of each file. */
  private unsaved = new Map<string, LogEntry>();
  /** Entries in the log (read at load, appended since). */
  private logged = 0;
  private appending = false;
  private compacting = false;
  /** A compaction in idle time failed: close() tries once more, idle time does not. */
  private compactionFailed = false;
  /** Bumped by every change to the index. */
  private generation = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private slice: NodeJS.Immediate | undefined;
  /** Background work under way, one slice per call; true when finished. */
  private job: (() => boolean) | undefined;

  constructor(store: MemoryStore, options: LiveIndexOptions = {}) {
    this.store = store;
    const file = options.cacheFile;
    this.paths = file
      ? { snapshot: file, log: join(dirname(file), `${basename(file, extname(file))}.log`) }
      : undefined;
    this.stamped =
      this.paths && store.cacheFile
        ? {
            memoryDir: store.memoryDir,
            stamp: join(dirname(this.paths.snapshot), STAMP_FILE),
            ...this.paths,
            entries: store.cacheFile,
          }
        : undefined;
  }

  /**
   * Brings the index up to date with memory/; returns what is not searchable (unreadable
   * frontmatter or body).
   */
  refresh(): MemoryProblem[] {
    this.syncedAt = Date.now();
    const snapshot = this.store.snapshot();
    if (!this.loaded || snapshot !== this.synced) this.sync(snapshot);
    // Last: the first refresh's load() just opened a snapshot, and a change left the index
    // unsaved; either is background work for the idle time.
    this.scheduleIdle();
    return [...snapshot.problems, ...this.bodyProblems.values()];
  }

  /** Saved terms whose postings are not parsed yet (a long-running process parses them in idle slices, then loads the whole index). */
  get unloadedTerms(): number {
    return this.saved?.unparsed ?? 0;
  }

  /** Memories in the index. */
  get documentCount(): number {
    return this.saved?.documentCount ?? this.mini.documentCount;
  }

  /** MiniSearch's search over the whole index (see SavedIndexView for a snapshot not loaded yet). */
  search(text: string, options: SearchOptions): SearchResult[] {
    if (!this.saved) return this.mini.search(text, options);
    return this.saved.forTerms(this.savedTerms.reachable(contentTerms(text))).search(text, options);
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
      this.note(['-', file]);
      changed = true;
    }
    const docs: IndexedDoc[] = [];
    for (const entry of current.values()) {
      const known = this.manifest.get(entry.file);
      if (known && known.mtimeMs === entry.mtimeMs && known.size === entry.size) continue;
      this.discard(entry.file);
      this.bodyProblems.delete(entry.file);
      const doc = this.readDoc(entry);
      if ('problem' in doc) {
        // Left out of the saved index, so the next process re-reads (and reports) it.
        this.bodyProblems.set(entry.file, doc);
        this.note(['-', entry.file]);
      } else {
        docs.push(doc);
        this.note(['+', doc, entry.mtimeMs, entry.size]);
      }
      this.manifest.set(entry.file, { mtimeMs: entry.mtimeMs, size: entry.size });
      changed = true;
    }
    this.addAll(docs);
    this.entries = current;
    this.synced = snapshot;
    if (changed) this.changed();
  }

  /** The index changed: a background load under way is dropped. */
  private changed(): void {
    this.generation++;
  }

  private note(entry: LogEntry): void {
    if (this.paths) this.unsaved.set(entry[0] === '+' ? entry[1].id : entry[1], entry);
  }

  /**
   * Appends unsaved changes to the log now, compacts it if it is long, and stops background work
   * (one-shot commands after printing, servers on shutdown). The index stays usable.
   */
  close(): void {
    this.pause();
    this.job = undefined;
    // Never searched (a recall of events only): there is nothing of this index to save.
    if (!this.paths || !this.loaded) return;
    // Derived data: failing to save costs the next cold start time, not correctness.
    try {
      // With no snapshot yet (a small home's index lives in its log until a compaction is due),
      // one is written too: a one-shot recall reads a snapshot and the log, never the log alone.
      if ((this.compactionDue || !this.snapshotFound) && !this.compacting && !this.saved) {
        // Every posting is here: the snapshot is this index, unsaved changes included.
        this.logged = compactSync(this.paths, {
          mini: this.mini,
          manifest: rowsOf(this.manifest, this.bodyProblems),
        });
        this.unsaved.clear();
        this.snapshotFound = true;
        this.stamp();
        return;
      }
      if (this.unsaved.size > 0) {
        appendLogSync(this.paths.log, INDEX_FORMAT, logLines(this.unsaved.values()));
        this.logged += this.unsaved.size;
        this.unsaved.clear();
      }
      if (this.compactionDue && !this.compacting) this.logged = compactSync(this.paths);
      this.stamp();
    } catch {
      // What was not written is re-read from the files by the next process.
    }
  }

  /**
   * Vouches for the saved index and the entry cache (recall-stamp.ts) when both hold the
   * snapshot this index reflects, everything is saved, and memory/ had not changed within
   * RACY_MS of the look at it (a change in the same mtime tick would leave the mtime as stamped).
   */
  private stamp(): void {
    const synced = this.synced;
    if (!this.stamped || !synced?.present || this.unsaved.size > 0 || this.compacting || this.appending)
      return;
    if (this.store.persistedVersion !== synced.version || this.store.snapshot() !== synced) return;
    if (this.syncedAt - synced.dirMtimeMs < RACY_MS) return;
    writeStamp(this.stamped, synced.dirMtimeMs, [...synced.problems, ...this.bodyProblems.values()]);
  }

  /** Saved and unsaved log entries are many (see COMPACT_SHARE). */
  private get compactionDue(): boolean {
    return this.logged + this.unsaved.size > Math.max(COMPACT_MIN, this.documentCount * COMPACT_SHARE);
  }

  private load(): void {
    this.loaded = true;
    if (!this.paths) return;
    // Missing or damaged: the index is derived, so start empty and index from the files.
    const saved = readSavedIndex(this.paths.snapshot, INDEX_FORMAT);
    if (saved) {
      this.snapshotFound = true;
      this.saved = new SavedIndexView<IndexedDoc>(saved, MINI_OPTIONS);
      this.savedTerms = new SavedTerms(saved.lines);
      this.manifest = manifestOf(saved.manifest);
    }
    const log = readLog(this.paths.log, INDEX_FORMAT);
    if (!log) return;
    this.logged = log.entries.length;
    const last = lastEntries(log.entries);
    // Discarded at once, then re-added: the overlay takes the saved documents in one rebuild.
    this.saved?.discardAll(last.keys());
    replay(this.saved ?? this.mini, this.manifest, last);
  }

  private addAll(docs: IndexedDoc[]): void {
    if (docs.length === 0) return;
    if (this.saved) for (const doc of docs) this.saved.add(doc);
    else this.mini.addAll(docs);
  }

  private discard(file: string): void {
    if (this.saved) this.saved.discard(file);
    else if (this.mini.has(file)) this.mini.discard(file);
  }

  private readDoc(entry: MemoryEntry): IndexedDoc | MemoryProblem {
    this.filesRead++;
    let text: string;
    try {
      const read = readMemoryText(this.store.memoryDir, entry.file);
      if (read === undefined) return { file: entry.file, problem: 'unreadable: ENOENT' };
      if (read.includes('\u0000')) return { file: entry.file, problem: 'binary content' };
      text = read;
    } catch (error) {
      if (error instanceof FileTooLargeError) return { file: entry.file, problem: 'too large' };
      if (error instanceof UnsafeFileError)
        return { file: entry.file, problem: error.message.replace(/^refused [^:]*: /, '') };
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
    if (!this.job && !this.backgroundWork) return;
    this.idleTimer = setTimeout(() => this.work(), IDLE_MS);
    this.idleTimer.unref();
  }

  /** Something to do in idle time that is not under way already (those call back when done). */
  private get backgroundWork(): boolean {
    if (this.loadingRest || this.appending) return false;
    return (
      this.saved !== undefined ||
      this.unsaved.size > 0 ||
      (this.compactionDue && !this.compacting && !this.compactionFailed)
    );
  }

  private pause(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.slice) clearImmediate(this.slice);
    this.idleTimer = undefined;
    this.slice = undefined;
  }

  /**
   * Runs one slice of background work and queues the next: loading the rest of a snapshot,
   * then appending unsaved changes to the log, then a compaction when the log is long.
   */
  private work(): void {
    this.idleTimer = undefined;
    this.slice = undefined;
    if (!this.job) {
      if (!this.backgroundWork) return;
      if (this.saved) this.job = () => this.parseSlice(this.saved!);
      else if (this.unsaved.size > 0) this.job = this.appendJob(this.paths!);
      else {
        this.startCompaction(this.paths!);
        return;
      }
    }
    if (this.job()) this.job = undefined;
    // Not unref'd: an unref'd immediate does not stop the event loop from blocking in poll, so
    // the next slice would wait for unrelated I/O. (The idle timer is unref'd: an idle process
    // is not kept alive to start background work; close() stops it.)
    if (this.job || this.backgroundWork) this.slice = setImmediate(() => this.work());
  }

  /** Parses saved postings for SLICE_MS; once all are parsed, starts loading the whole index (loadWhole) and returns true. */
  private parseSlice(saved: SavedIndexView<IndexedDoc>): boolean {
    if (!saved.parseFor(SLICE_MS)) return false;
    this.loadWhole(saved);
    return true;
  }

  /**
   * Loads the whole index from the snapshot and the overlay with loadJSAsync, which yields as it
   * goes. The new instance replaces the view unless the index changed meanwhile (then the idle
   * time retries); queries arriving during the load are answered by the view.
   */
  private loadWhole(saved: SavedIndexView<IndexedDoc>): void {
    const { generation } = this;
    this.loadingRest = true;
    void saved
      .whole(SLICE_MS)
      .then((whole) => {
        if (this.generation !== generation || this.saved !== saved) return;
        this.mini = whole;
        this.saved = undefined;
        this.savedTerms = new SavedTerms();
      })
      .catch(() => {
        // The view keeps answering; the next idle time retries.
      })
      .finally(() => {
        this.loadingRest = false;
        this.scheduleIdle();
      });
  }

  /** Turns the unsaved changes into log lines for SLICE_MS at a time, then appends them without blocking. */
  private appendJob(paths: IndexPaths): () => boolean {
    const batch = [...this.unsaved];
    this.unsaved = new Map();
    let text = '';
    let i = 0;
    return () => {
      const until = performance.now() + SLICE_MS;
      while (i < batch.length) {
        text += logLines([batch[i++]![1]]);
        if ((i & 63) === 0 && performance.now() > until) return false;
      }
      this.appending = true;
      appendLog(paths.log, INDEX_FORMAT, text).then(
        () => {
          this.appending = false;
          this.logged += batch.length;
          this.scheduleIdle(); // for changes made meanwhile, or a compaction now due
        },
        () => {
          // Kept for close() (or the next recall's idle time) to try again; a later change to a file wins.
          this.appending = false;
          this.failedSaves++;
          for (const [file, entry] of batch) if (!this.unsaved.has(file)) this.unsaved.set(file, entry);
        },
      );
      return true;
    };
  }

  /**
   * Folds the log into a new snapshot off the event loop: in a worker thread when running built
   * (dist/); under a TypeScript runner (tests), where a thread could not load the worker, here.
   */
  private startCompaction(paths: IndexPaths): void {
    this.compacting = true;
    const done = (entries: number | undefined) => {
      if (!this.compacting) return;
      this.compacting = false;
      if (entries === undefined) {
        this.compactionFailed = true;
        this.failedSaves++;
      } else {
        this.logged = entries;
        this.snapshotFound = true;
      }
    };
    if (!/\.c?js$/.test(import.meta.url)) {
      compact(paths).then(done, () => done(undefined));
      return;
    }
    const worker = new Worker(packagePath('dist', 'mind', 'memory', 'compact-worker.js'), {
      workerData: paths,
    });
    worker.unref(); // an exiting process does not wait: the files are replaced atomically or not at all
    worker.once('message', (message: { entries?: number }) => done(message.entries));
    worker.once('error', () => done(undefined));
    worker.once('exit', () => done(undefined));
  }
}
