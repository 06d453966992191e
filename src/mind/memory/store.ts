import { type FSWatcher, lstatSync, statSync, watch } from 'node:fs';
import { join } from 'node:path';
import {
  isMemoryFileName,
  isProblem,
  listMemoryFiles,
  type MemoryEntry,
  type MemoryProblem,
  readMemoryEntry,
} from './entries.js';
import { ENTRIES_FILE, type PersistedEntries, readEntries, writeEntries } from './entries-cache.js';
import {
  dropDerivedFile,
  type MemoryOverview,
  overviewOf,
  persistOverview,
  RACY_MS,
  readPersistedOverview,
} from './overview.js';
import { quickOverview } from './quick-overview.js';
import type { MemoryScope } from './scope.js';

/** A consistent view of memory/ at one moment. `version` changes whenever anything changed. */
export interface MemorySnapshot {
  version: number;
  entries: MemoryEntry[];
  problems: MemoryProblem[];
  /** True when memory/ exists. */
  present: boolean;
  /** memory/'s mtime when it was looked at (NaN when it does not exist). */
  dirMtimeMs: number;
}

export interface MemoryStoreOptions {
  /** Where the derived entry cache is persisted (under <home>/cache/). */
  cacheFile?: string;
  /** Where the packet's overview of memory/ is persisted (under <home>/cache/), keyed on memory/'s mtime. */
  overviewFile?: string;
  /** Where a quick overview keeps its per-file manifest (under <home>/cache/). */
  manifestFile?: string;
  /** Watch memory/ for in-place edits (long-running servers); off for one-shot commands. */
  watch?: boolean;
  /** Which memories the packet's overview counts (the mind's project and the global ones); asked when needed. */
  scope?: () => MemoryScope;
}

/** The store of a home's memory/ with its caches under cache/, as the mind and one-shot commands open it. */
export function homeMemoryStore(
  paths: { memory: string; cache: string },
  options: Pick<MemoryStoreOptions, 'watch'> = {},
): MemoryStore {
  return new MemoryStore(paths.memory, {
    cacheFile: join(paths.cache, ENTRIES_FILE),
    overviewFile: join(paths.cache, 'memory-overview.json'),
    manifestFile: join(paths.cache, 'memory-manifest.json'),
    ...options,
  });
}

type Cached = MemorySnapshot & { dirMtimeMs: number };

/**
 * The memory directory's entries (frontmatter only), kept cheap to ask for: a call costs one
 * stat of memory/ while nothing changed. Adding, removing or renaming a file (every write
 * firstlight makes is a rename) changes the directory's mtime; in-place edits by humans are
 * caught by a watcher in servers. On a change only files whose mtime or size moved are re-read,
 * and the result is persisted so a cold CLI start does not read 10,000 files. Files the watcher
 * names, and files this process's `remember` wrote, are re-read alone, without a rescan.
 */
export class MemoryStore {
  readonly memoryDir: string;
  /** The entry cache's path, if it has one. */
  readonly cacheFile: string | undefined;
  private readonly overviewFile: string | undefined;
  private readonly manifestFile: string | undefined;
  private readonly scope: () => MemoryScope;
  private snapshotCache: Cached | undefined;
  /** Changed since snapshotCache: 'all' (rescan) or the files the watcher named (re-read alone). */
  private changed: Set<string> | 'all' = new Set();
  /** snapshotCache holds files the persisted cache does not: the next rescan persists. */
  private unpersisted = false;
  private names: NameIndex | undefined;
  private watcher: FSWatcher | undefined;
  private versionCounter = 0;
  /**
   * The version of the snapshot the entry cache on disk holds (written or found unchanged by
   * this process's last rescan), until a later snapshot differs from it.
   */
  persistedVersion: number | undefined;

  constructor(memoryDir: string, options: MemoryStoreOptions = {}) {
    this.memoryDir = memoryDir;
    this.cacheFile = options.cacheFile;
    this.overviewFile = options.overviewFile;
    this.manifestFile = options.manifestFile;
    this.scope = options.scope ?? (() => null);
    if (options.watch) this.startWatching();
  }

  /** The current snapshot, refreshed only when memory/ changed. */
  snapshot(): MemorySnapshot {
    const startedAt = Date.now();
    const dirMtimeMs = statMtime(this.memoryDir);
    const cached = this.snapshotCache;
    if (cached && this.changed !== 'all' && cached.dirMtimeMs === dirMtimeMs) {
      if (this.changed.size === 0) return cached;
      // Edits in place (adding or removing a file moves memory/'s mtime): re-read those alone.
      const files = [...this.changed];
      this.changed.clear();
      this.snapshotCache = this.patch(cached, files, dirMtimeMs);
      // The persisted overview is keyed on memory/'s mtime, which an edit in place leaves alone.
      if (this.snapshotCache !== cached) this.persistOverview(this.snapshotCache, startedAt);
      return this.snapshotCache;
    }
    this.changed = new Set();
    if (this.watcher === undefined && this.watchWanted) this.startWatching();
    const next = this.rescan(dirMtimeMs, startedAt);
    this.snapshotCache = next;
    return next;
  }

  /**
   * What the packet shows of memory/. With `quick`, a process that has not scanned memory/ yet
   * takes the overview the last scan persisted when memory/'s mtime is still the one it was
   * counted at: one stat and a small file instead of a stat of every memory; after a change, it
   * stats each file against a small manifest instead of loading the entry cache (see
   * quickOverview). Adding, removing or renaming a file moves memory/'s mtime; an edit in place
   * does not, and shows once any firstlight process scans memory/ again (every server does at
   * its first packet). The SessionStart hook uses it; servers answer from a full scan.
   */
  overview(options: { quick?: boolean } = {}): MemoryOverview {
    if (options.quick && !this.snapshotCache && this.overviewFile && this.manifestFile) {
      const files = { overview: this.overviewFile, manifest: this.manifestFile };
      return quickOverview(this.memoryDir, files, () => this.snapshot(), this.scope());
    }
    return overviewOf(this.snapshot(), this.scope());
  }

  /** Forget the in-memory view (another writer in this process changed a file in place). */
  invalidate(): void {
    this.changed = 'all';
  }

  /**
   * Takes note of files this process just wrote into memory/ (remember, under memory/'s lock).
   * `dirMtimeBefore` is memory/'s mtime just before the writes: when it is the snapshot's, nothing
   * else changed the directory since, and the snapshot takes the written files in by re-reading
   * them alone; otherwise the next snapshot rescans. (A file another program adds between the
   * writes and this call is seen at the next change of memory/, or at once by a watcher.)
   */
  noteWritten(files: string[], dirMtimeBefore: number): void {
    const cached = this.snapshotCache;
    if (!cached || this.changed === 'all' || cached.dirMtimeMs !== dirMtimeBefore) {
      this.invalidate();
      return;
    }
    this.snapshotCache = this.patch(cached, files, statMtime(this.memoryDir));
  }

  /** The memory file whose frontmatter `name` is `name` (case-insensitive), if any. */
  fileNamed(name: string): string | undefined {
    const snapshot = this.snapshot();
    if (this.names?.version !== snapshot.version) this.names = new NameIndex(snapshot);
    return this.names.get(name);
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
      this.watcher = watch(this.memoryDir, { persistent: false }, (_event, name) => {
        if (name && this.changed !== 'all') this.changed.add(name);
        else this.invalidate();
      });
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = undefined;
        this.invalidate();
      });
    } catch {
      // memory/ may not exist yet; the next snapshot() retries.
      this.watcher = undefined;
    }
  }

  private rescan(dirMtimeMs: number, startedAt: number): Cached {
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
    const changed = reread > 0 || !same || this.unpersisted;
    const persisted = !changed || this.persist({ dirMtimeMs, entries, problems });
    this.persistedVersion = persisted && this.cacheFile ? version : undefined;
    this.unpersisted = false;
    const next: Cached = { version, entries, problems, present: true, dirMtimeMs };
    if (changed || (this.overviewFile && !readPersistedOverview(this.overviewFile, dirMtimeMs, this.scope())))
      this.persistOverview(next, startedAt);
    return next;
  }

  /**
   * Persists `snapshot`'s overview, keyed on its memory/ mtime, unless memory/ changed less than
   * RACY_MS before `startedAt` (when this look at memory/ began): a change right after could
   * then leave the same mtime behind.
   */
  private persistOverview(snapshot: Cached, startedAt: number): void {
    if (!this.overviewFile || !snapshot.present) return;
    if (startedAt - snapshot.dirMtimeMs < RACY_MS) dropDerivedFile(this.overviewFile);
    else {
      const scope = this.scope();
      persistOverview(this.overviewFile, snapshot.dirMtimeMs, overviewOf(snapshot, scope), scope);
    }
  }

  /**
   * `base` with `files` re-read (or dropped when gone), in listing order, as a rescan would
   * have them; `base` itself when none of them changed. Not persisted here: rewriting the whole
   * cache after each write made a burst of remembers quadratic; the next rescan persists.
   */
  private patch(base: Cached, files: string[], dirMtimeMs: number): Cached {
    const entries = [...base.entries];
    const problems = [...base.problems];
    const changed: { before: MemoryEntry | undefined; after: MemoryEntry | undefined }[] = [];
    for (const file of new Set(files)) {
      if (!isMemoryFileName(file)) continue;
      const at = sortedIndex(entries, file);
      const before = entries[at]?.file === file ? entries[at] : undefined;
      const problemAt = sortedIndex(problems, file);
      const wasProblem = problems[problemAt]?.file === file;
      const st = lstatSync(join(this.memoryDir, file), { throwIfNoEntry: false });
      if (before && st?.isFile() && st.mtimeMs === before.mtimeMs && st.size === before.size) continue;
      if (before) entries.splice(at, 1);
      if (wasProblem) problems.splice(problemAt, 1);
      if (!st && !before && !wasProblem) continue; // came and went
      const read = st ? readMemoryEntry(this.memoryDir, file) : undefined;
      const after = read && !isProblem(read) ? read : undefined;
      if (after) entries.splice(at, 0, after);
      else if (read && isProblem(read)) problems.splice(problemAt, 0, read);
      changed.push({ before, after });
    }
    if (changed.length === 0 && dirMtimeMs === base.dirMtimeMs) return base;
    const version = ++this.versionCounter;
    if (this.names?.version === base.version) this.names.update(version, entries, changed);
    this.unpersisted ||= changed.length > 0;
    return { version, entries, problems, present: base.present, dirMtimeMs };
  }

  private previousEntries(): PersistedEntries | undefined {
    if (this.snapshotCache) {
      const { entries, problems, dirMtimeMs } = this.snapshotCache;
      return { dirMtimeMs, entries, problems };
    }
    return this.cacheFile ? readEntries(this.cacheFile) : undefined;
  }

  private persist(data: PersistedEntries): boolean {
    if (!this.cacheFile) return false;
    try {
      writeEntries(this.cacheFile, data);
      return true;
    } catch {
      // The cache is derived; failing to write it costs speed, not data.
      return false;
    }
  }
}

/**
 * Lower-cased frontmatter names to files (the first file in listing order when several share a
 * name), for remember's "is this name taken" without a pass over every entry per call.
 */
class NameIndex {
  version: number;
  private readonly files = new Map<string, string>();

  constructor(snapshot: MemorySnapshot) {
    this.version = snapshot.version;
    for (const entry of snapshot.entries) this.add(entry);
  }

  get(name: string): string | undefined {
    return this.files.get(name.toLowerCase());
  }

  /** Follows a patch: `changed` files went from `before` to `after` in `entries`. */
  update(
    version: number,
    entries: MemoryEntry[],
    changed: { before: MemoryEntry | undefined; after: MemoryEntry | undefined }[],
  ): void {
    this.version = version;
    for (const { before } of changed) {
      if (!before || before.type === 'index') continue;
      const key = before.name.toLowerCase();
      if (this.files.get(key) !== before.file) continue;
      this.files.delete(key);
      // Rare (a memory renamed or removed): another file may hold the same name.
      const next = entries.find((e) => e.type !== 'index' && e.name.toLowerCase() === key);
      if (next) this.files.set(key, next.file);
    }
    for (const { after } of changed) if (after) this.add(after);
  }

  private add(entry: MemoryEntry): void {
    if (entry.type === 'index') return;
    const key = entry.name.toLowerCase();
    const held = this.files.get(key);
    if (held === undefined || entry.file < held) this.files.set(key, entry.file);
  }
}

/** Where `file` is, or would go, in a list sorted by file name (listMemoryFiles' order). */
function sortedIndex(list: readonly { file: string }[], file: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.file < file) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function statMtime(path: string): number {
  try {
    return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Number.NaN;
  } catch {
    return Number.NaN;
  }
}
