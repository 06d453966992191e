import { readFileSync } from 'node:fs';
import MiniSearch from 'minisearch';
import { normalizeTerm, tokenize } from '../../core/index.js';
import { type ChangeLog, type IndexedDoc, type LogEntry, newLogId, readLog, startLog } from './index-log.js';
import { fromSnapshot, type ManifestRow, readSavedIndex, writeSnapshot } from './persisted-index.js';

export const FIELDS = ['name', 'description', 'tags', 'body', 'when'] as const;
export const MINI_OPTIONS = {
  idField: 'id',
  fields: [...FIELDS],
  storeFields: [] as string[],
  tokenize,
  processTerm: (term: string) => normalizeTerm(term) ?? null,
  // Vacuuming walks every posting: a partly loaded index would clean only some. Discarded
  // memories' postings are dropped by a compaction, which has them all (see compact()).
  autoVacuum: false,
};
/** Bump when analysis (tokenizer, stemmer, fields) or the file layout changes: old saved files are then ignored. */
export const INDEX_FORMAT = 8;

/** Where the recall index is saved: the snapshot and the change log beside it. */
export interface IndexPaths {
  snapshot: string;
  log: string;
}

/** Each indexed file's mtime and size, as the manifest holds them. */
export type Manifest = Map<string, { mtimeMs: number; size: number }>;

/** The last entry of each file among `entries`: replaying only those gives the same index. */
export function lastEntries(entries: Iterable<LogEntry>): Map<string, LogEntry> {
  const last = new Map<string, LogEntry>();
  for (const entry of entries) last.set(entry[0] === '+' ? entry[1].id : entry[1], entry);
  return last;
}

/** What replay changes: a MiniSearch, or a saved index used without loading it (SavedIndexView). */
export type ReplayTarget = Pick<MiniSearch<IndexedDoc>, 'has' | 'discard' | 'add'>;

/** Replays `entries` (one per file, see lastEntries) on `mini` and `manifest`. */
export function replay(mini: ReplayTarget, manifest: Manifest, entries: Map<string, LogEntry>): void {
  for (const [file, entry] of entries) {
    if (mini.has(file)) mini.discard(file);
    if (entry[0] === '-') {
      manifest.delete(file);
      continue;
    }
    mini.add(entry[1]);
    manifest.set(file, { mtimeMs: entry[2], size: entry[3] });
  }
}

export function manifestOf(rows: ManifestRow[]): Manifest {
  return new Map(rows.map(([file, mtimeMs, size]) => [file, { mtimeMs, size }]));
}

export function rowsOf(manifest: Manifest, leaveOut?: ReadonlyMap<string, unknown>): ManifestRow[] {
  const rows: ManifestRow[] = [];
  for (const [file, m] of manifest) if (!leaveOut?.has(file)) rows.push([file, m.mtimeMs, m.size]);
  return rows;
}

interface Folded {
  mini: MiniSearch<IndexedDoc>;
  manifest: Manifest;
  log: ChangeLog | undefined;
}

/** The snapshot with its log replayed, every posting loaded. */
function fold(paths: IndexPaths): Folded {
  const saved = readSavedIndex(paths.snapshot, INDEX_FORMAT);
  const log = readLog(paths.log, INDEX_FORMAT);
  const mini = saved ? fromSnapshot(saved, MINI_OPTIONS) : new MiniSearch<IndexedDoc>(MINI_OPTIONS);
  const manifest = manifestOf(saved?.manifest ?? []);
  if (log) replay(mini, manifest, lastEntries(log.entries));
  return { mini, manifest, log };
}

/**
 * Folds the change log into a new snapshot, with the postings of discarded memories dropped,
 * and starts a new log holding what was appended to the old one meanwhile. Returns how many
 * entries the new log starts with. Runs in a worker thread in servers (compact-worker.ts): it
 * copies the whole index (toJSON(): most of a second at 10,000 memories).
 */
export async function compact(paths: IndexPaths): Promise<number> {
  const folded = fold(paths);
  if (folded.mini.dirtCount > 0) await folded.mini.vacuum();
  return finish(paths, folded);
}

/**
 * compact() without vacuuming (it is asynchronous), for a process about to exit. `loaded` is
 * the process's own index when it holds every posting: it is written as it is, and the new log
 * starts empty (what other processes appended since this one loaded is re-read from the files).
 */
export function compactSync(
  paths: IndexPaths,
  loaded?: { mini: MiniSearch<IndexedDoc>; manifest: ManifestRow[] },
): number {
  if (!loaded) return finish(paths, fold(paths));
  return finish(paths, { mini: loaded.mini, manifest: manifestOf(loaded.manifest), log: undefined });
}

function finish(paths: IndexPaths, { mini, manifest, log }: Folded): number {
  writeSnapshot(paths.snapshot, INDEX_FORMAT, mini, rowsOf(manifest));
  const tail = log ? appendedSince(paths.log, log) : '';
  startLog(paths.log, INDEX_FORMAT, newLogId(), tail);
  return tail === '' ? 0 : tail.split('\n').length - 1;
}

/** Whole lines appended to `log` after it was read (none if it was replaced meanwhile). */
function appendedSince(file: string, log: ChangeLog): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return '';
  }
  const now = readLog(file, INDEX_FORMAT);
  if (now?.id !== log.id) return '';
  const text = bytes.subarray(log.bytes).toString('utf8');
  return text.slice(0, text.lastIndexOf('\n') + 1);
}
