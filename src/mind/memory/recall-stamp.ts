import { readFileSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomicallySync } from '../../core/index.js';
import type { MemoryProblem } from './entries.js';
import { ENTRIES_FILE } from './entries-cache.js';

/** A file as it was: inode, size, mtime (a rewrite by rename gets a new inode; an append a new size). */
type FileKey = [ino: number, size: number, mtimeMs: number] | null;

/**
 * What a one-shot recall may trust without looking at every memory file (cache/recall-index.stamp):
 * the saved index (snapshot and log) and the entry cache, as they were when a process that had
 * brought all three in step with memory/ wrote the stamp, and memory/'s mtime then. A one-shot
 * recall that finds memory/'s mtime and the three files unchanged answers from them alone;
 * anything else (a memory added, removed or renamed, which moves memory/'s mtime; the index or
 * the cache rewritten) sends it the long way, which stats every memory file and writes a new
 * stamp. An edit in place moves no directory mtime: it is seen by the next process that stats
 * the files (every server at its first recall, and at once through its watcher; `memory list`,
 * `status`), and a one-shot recall whose results include the edited file goes the long way.
 */
export interface RecallStamp {
  format: number;
  dirMtimeMs: number;
  files: { snapshot: FileKey; log: FileKey; entries: FileKey };
  /** What the long way reported as not searchable then. */
  problems: MemoryProblem[];
}

export const STAMP_FORMAT = 1;
/** The stamp's name in cache/, beside the saved index. */
export const STAMP_FILE = 'recall-index.stamp';

/** The saved recall index in cache/ (see persisted-index.ts), its change log and the stamp beside it. */
export const RECALL_INDEX_FILE = 'recall-index.idx';
export const RECALL_LOG_FILE = 'recall-index.log';

/** The files a stamp vouches for. */
export interface StampedFiles {
  memoryDir: string;
  stamp: string;
  snapshot: string;
  log: string;
  entries: string;
}

function keyOf(stats: Stats | undefined): FileKey {
  return stats ? [stats.ino, stats.size, stats.mtimeMs] : null;
}

function stat(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function sameKey(a: FileKey, b: FileKey): boolean {
  return a === null || b === null ? a === b : a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
}

/** Writes the stamp (atomically); a failure costs the next one-shot recall time, not correctness. */
export function writeStamp(files: StampedFiles, dirMtimeMs: number, problems: MemoryProblem[]): void {
  const stamp: RecallStamp = {
    format: STAMP_FORMAT,
    dirMtimeMs,
    files: {
      snapshot: keyOf(stat(files.snapshot)),
      log: keyOf(stat(files.log)),
      entries: keyOf(stat(files.entries)),
    },
    problems,
  };
  try {
    writeFileAtomicallySync(files.stamp, JSON.stringify(stamp));
  } catch {
    // derived
  }
}

/** The stamp when memory/ and the files it vouches for are as it says; undefined otherwise. */
export function trustedStamp(files: StampedFiles): RecallStamp | undefined {
  let stamp: RecallStamp;
  try {
    stamp = JSON.parse(readFileSync(files.stamp, 'utf8')) as RecallStamp;
  } catch {
    return undefined;
  }
  if (stamp.format !== STAMP_FORMAT || !stamp.files || !Array.isArray(stamp.problems)) return undefined;
  if (stat(files.memoryDir)?.mtimeMs !== stamp.dirMtimeMs) return undefined;
  for (const name of ['snapshot', 'log', 'entries'] as const) {
    if (!sameKey(keyOf(stat(files[name])), stamp.files[name])) return undefined;
  }
  return stamp;
}

/** A home's stamped files: memory/ and cache/ as homePaths gives them. */
export function homeStampedFiles(paths: { memory: string; cache: string }): StampedFiles {
  return {
    memoryDir: paths.memory,
    stamp: join(paths.cache, STAMP_FILE),
    snapshot: join(paths.cache, RECALL_INDEX_FILE),
    log: join(paths.cache, RECALL_LOG_FILE),
    entries: join(paths.cache, ENTRIES_FILE),
  };
}
