import { lstatSync, readFileSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';
import { isProblem, listMemoryFiles, type MemoryEntry, readMemoryEntry } from './entries.js';
import {
  countOverview,
  dropDerivedFile,
  INSTRUCTION_TYPES,
  isInactive,
  type MemoryOverview,
  type OverviewEntry,
  overviewOf,
  persistOverview,
  RACY_MS,
  readPersistedOverview,
  writeDerivedFile,
} from './overview.js';
import { type MemoryScope, projectOf } from './scope.js';
import type { MemorySnapshot } from './store.js';

export interface QuickOverviewFiles {
  /** The overview, keyed on memory/'s mtime (small: read at every session start). */
  overview: string;
  /** Per file, what its overview counts, keyed on the file's mtime and size. */
  manifest: string;
}

/**
 * A manifest row: file, mtime, size, then type, tags and project id ('' for a global memory)
 * (and name and description for `type: user`, the people the packet names, and for the
 * instruction types, with 1 when the memory is proposed or superseded), or null for a file
 * skipped as unreadable or malformed.
 */
type Row =
  | [
      file: string,
      mtimeMs: number,
      size: number,
      type: string,
      tags: string[],
      project: string,
      name?: string,
      description?: string,
      inactive?: 0 | 1,
    ]
  | [file: string, mtimeMs: number, size: number, skipped: null];

interface PersistedManifest {
  format: 3;
  rows: Row[];
}

/**
 * memory/'s overview for a one-shot process (the SessionStart hook) without the full entry
 * cache: the persisted overview while memory/'s mtime is unchanged; after a change, a stat of
 * each file against the manifest (a few hundred KB beside the entry cache's megabytes), reading
 * only files whose mtime or size moved. Without a manifest it takes `scan()` (the store's full
 * snapshot) once and writes one from it.
 */
export function quickOverview(
  memoryDir: string,
  files: QuickOverviewFiles,
  scan: () => MemorySnapshot,
  scope: MemoryScope = null,
): MemoryOverview {
  const startedAt = Date.now();
  let dirMtimeMs: number;
  try {
    dirMtimeMs = statSync(memoryDir).mtimeMs;
  } catch {
    return overviewOf(scan(), scope);
  }
  const persisted = readPersistedOverview(files.overview, dirMtimeMs, scope);
  if (persisted) return persisted;
  const known = readManifest(files.manifest);
  if (!known) {
    const snapshot = scan();
    writeManifest(files.manifest, [
      ...snapshot.entries.map(rowOf),
      ...snapshot.problems.map((p): Row => [p.file, Number.NaN, Number.NaN, null]),
    ]);
    return overviewOf(snapshot, scope);
  }
  const rows: Row[] = [];
  let changed = false;
  for (const file of listMemoryFiles(memoryDir)) {
    const prior = known.get(file);
    if (prior && prior[3] !== null) {
      let st: Stats | undefined;
      try {
        st = lstatSync(join(memoryDir, file), { throwIfNoEntry: false });
      } catch {
        // unreadable: re-read below, which reports it
      }
      // A symlink is always re-read (readMemoryEntry checks where it points), as the store does.
      if (st?.isFile() && st.mtimeMs === prior[1] && st.size === prior[2]) {
        rows.push(prior);
        continue;
      }
    }
    changed = true;
    const read = readMemoryEntry(memoryDir, file);
    rows.push(isProblem(read) ? [file, Number.NaN, Number.NaN, null] : rowOf(read));
  }
  if (changed || rows.length !== known.size) writeManifest(files.manifest, rows);
  const entries: OverviewEntry[] = [];
  let problems = 0;
  for (const row of rows) {
    if (row[3] === null) problems++;
    else
      entries.push({
        file: row[0],
        type: row[3],
        tags: row[4],
        project: row[5] || undefined,
        name: row[6] ?? '',
        description: row[7] ?? '',
        mtimeMs: row[1],
        inactive: row[8] === 1,
      });
  }
  const overview = countOverview(entries, problems, scope);
  if (startedAt - dirMtimeMs < RACY_MS) dropDerivedFile(files.overview);
  else persistOverview(files.overview, dirMtimeMs, overview, scope);
  return overview;
}

function rowOf(entry: MemoryEntry): Row {
  const row: Row = [entry.file, entry.mtimeMs, entry.size, entry.type, entry.tags, projectOf(entry) ?? ''];
  if (entry.type === 'user') row.push(entry.name, entry.description);
  else if (INSTRUCTION_TYPES.has(entry.type))
    row.push(entry.name, entry.description, isInactive(entry) ? 1 : 0);
  return row;
}

function readManifest(file: string): Map<string, Row> | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as PersistedManifest;
    if (parsed.format !== 3 || !Array.isArray(parsed.rows)) return undefined;
    return new Map(parsed.rows.map((row) => [row[0], row]));
  } catch {
    return undefined;
  }
}

function writeManifest(file: string, rows: Row[]): void {
  const data: PersistedManifest = { format: 3, rows };
  writeDerivedFile(file, JSON.stringify(data));
}
