import { type FSWatcher, lstatSync, readFileSync, statSync, watch } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicallySync } from '../../core/index.js';
import {
  isProblem,
  listMemoryFiles,
  type MemoryEntry,
  type MemoryProblem,
  readMemoryEntry,
} from './entries.js';

/** A consistent view of memory/ at one moment. `version` changes whenever anything changed. */
export interface MemorySnapshot {
  version: number;
  entries: MemoryEntry[];
  problems: MemoryProblem[];
  /** True when memory/ exists. */
  present: boolean;
}

interface PersistedEntries {
  format: 2;
  dirMtimeMs: number;
  entries: MemoryEntry[];
  problems: (MemoryProblem & { mtimeMs?: number; size?: number })[];
}

export interface MemoryStoreOptions {
  /** Where the derived entry cache is persisted (under <home>/cache/). */
  cacheFile?: string;
  /** Watch memory/ for in-place edits (long-running servers); off for one-shot commands. */
  watch?: boolean;
}

/**
 * The memory directory's entries (frontmatter only), kept cheap to ask for: a call costs one
 * stat of memory/ while nothing changed. Adding, removing or renaming a file (every write
 * firstlight makes is a rename) changes the directory's mtime; in-place edits by humans are
 * caught by a watcher in servers. On a change only files whose mtime or size moved are re-read,
 * and the result is persisted so a cold CLI start does not read 10,000 files.
 */
export class MemoryStore {
  readonly memoryDir: string;
  private readonly cacheFile: string | undefined;
  private snapshotCache: (MemorySnapshot & { dirMtimeMs: number }) | undefined;
  private dirty = false;
  private watcher: FSWatcher | undefined;
  private versionCounter = 0;

  constructor(memoryDir: string, options: MemoryStoreOptions = {}) {
    this.memoryDir = memoryDir;
    this.cacheFile = options.cacheFile;
    if (options.watch) this.startWatching();
  }

  /** The current snapshot, refreshed only when memory/ changed. */
  snapshot(): MemorySnapshot {
    const dirMtimeMs = statMtime(this.memoryDir);
    const cached = this.snapshotCache;
    if (cached && !this.dirty && cached.dirMtimeMs === dirMtimeMs) return cached;
    this.dirty = false;
    if (this.watcher === undefined && this.watchWanted) this.startWatching();
    const next = this.rescan(dirMtimeMs);
    this.snapshotCache = next;
    return next;
  }

  /** Forget the in-memory view (another writer in this process changed a file in place). */
  invalidate(): void {
    this.dirty = true;
  }

  /** Stops the watcher so the process can exit. */
  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
    this.watchWanted = false;
  }

  private watchWanted = false;

  private startWatching(): void {
    this.watchWanted = true;
    try {
      this.watcher = watch(this.memoryDir, { persistent: false }, () => {
        this.dirty = true;
      });
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = undefined;
        this.dirty = true;
      });
    } catch {
      // memory/ may not exist yet; the next snapshot() retries.
      this.watcher = undefined;
    }
  }

  private rescan(dirMtimeMs: number): MemorySnapshot & { dirMtimeMs: number } {
    const version = ++this.versionCounter;
    if (Number.isNaN(dirMtimeMs)) return { version, entries: [], problems: [], present: false, dirMtimeMs };
    // Even with a persisted cache for this directory mtime, each file is stat'ed: in-place edits
    // do not move the directory's mtime, and 10,000 stats cost far less than 10,000 reads.
    const previous = this.previousEntries();
    const known = new Map<string, MemoryEntry>();
    for (const entry of previous?.entries ?? []) known.set(entry.file, entry);
    const entries: MemoryEntry[] = [];
    const problems: MemoryProblem[] = [];
    let reread = 0;
    for (const file of listMemoryFiles(this.memoryDir)) {
      const prior = known.get(file);
      if (prior) {
        try {
          // lstat: a file turned into a symlink is re-read, and a symlink always is (it is rare,
          // and readMemoryEntry checks where it points).
          const st = lstatSync(join(this.memoryDir, file));
          if (st.isFile() && st.mtimeMs === prior.mtimeMs && st.size === prior.size) {
            entries.push(prior);
            continue;
          }
        } catch {
          // vanished between readdir and stat: treat as a fresh read below, which reports it.
        }
      }
      reread++;
      const read = readMemoryEntry(this.memoryDir, file);
      if (isProblem(read)) problems.push(read);
      else entries.push(read);
    }
    // Rewriting a 4 MB cache that did not change cost every cold CLI call ~50 ms.
    const same = previous?.dirMtimeMs === dirMtimeMs && entries.length === previous.entries.length;
    if (reread > 0 || !same) this.persist({ format: 2, dirMtimeMs, entries, problems });
    return { version, entries, problems, present: true, dirMtimeMs };
  }

  private previousEntries(): PersistedEntries | undefined {
    if (this.snapshotCache) {
      const { entries, problems, dirMtimeMs } = this.snapshotCache;
      return { format: 2, dirMtimeMs, entries, problems };
    }
    if (!this.cacheFile) return undefined;
    try {
      const parsed = JSON.parse(readFileSync(this.cacheFile, 'utf8')) as PersistedEntries;
      return parsed.format === 2 && Array.isArray(parsed.entries) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  private persist(data: PersistedEntries): void {
    if (!this.cacheFile) return;
    try {
      writeFileAtomicallySync(this.cacheFile, JSON.stringify(data));
    } catch {
      // The cache is derived; failing to write it costs speed, not data.
    }
  }
}

function statMtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Number.NaN;
  }
}
