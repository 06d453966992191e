import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { catalogOf, countCatalog, type MemoryCatalog } from './catalog.js';
import type { MemoryEntry } from './entries.js';
import type { MemorySnapshot } from './store.js';

/** A person the packet names, from a `type: user` memory (a type, so it fits the packet's open object). */
export type MemoryPerson = {
  name: string;
  description: string;
};

/** What the bootstrap packet shows of memory/: constant size, whatever the memory count. */
export interface MemoryOverview {
  /** True when memory/ exists. */
  present: boolean;
  catalog: MemoryCatalog;
  /** The first `type: user` memories in listing order, at most {@link MAX_PEOPLE}. */
  people: MemoryPerson[];
  /** Files skipped as unreadable or malformed. */
  problemCount: number;
}

const MAX_PEOPLE = 12;
/** Words of a description that label a person whose memory has no `name:`. */
const LABEL_WORDS = 6;

const bySnapshot = new WeakMap<MemorySnapshot, MemoryOverview>();

/** What an overview needs of one memory's entry. */
export type OverviewEntry = Pick<MemoryEntry, 'file' | 'type' | 'tags' | 'name' | 'description'>;

/** The overview of a snapshot; memoised per snapshot (a pass over 10,000 entries otherwise). */
export function overviewOf(snapshot: MemorySnapshot): MemoryOverview {
  let overview = bySnapshot.get(snapshot);
  if (!overview) {
    overview = {
      present: snapshot.present,
      catalog: catalogOf(snapshot),
      people: peopleOf(snapshot.entries),
      problemCount: snapshot.problems.length,
    };
    bySnapshot.set(snapshot, overview);
  }
  return overview;
}

/** The overview of a present memory/ from its entries in listing order and a count of skipped files. */
export function countOverview(entries: readonly OverviewEntry[], problemCount: number): MemoryOverview {
  return {
    present: true,
    catalog: countCatalog(entries, problemCount),
    people: peopleOf(entries),
    problemCount,
  };
}

function peopleOf(entries: readonly OverviewEntry[]): MemoryPerson[] {
  const people: MemoryPerson[] = [];
  for (const entry of entries) {
    if (people.length === MAX_PEOPLE) break;
    if (entry.type !== 'user') continue;
    const person = personOf(entry);
    if (person) people.push(person);
  }
  return people;
}

/**
 * A person as the packet shows them. A memory without `name:` gets its file name as name from
 * the memory store, and the packet never shows a filename: such a person is labelled by the
 * first words of their description instead, or left out when there is none.
 */
function personOf(entry: OverviewEntry): MemoryPerson | undefined {
  const stem = entry.file.replace(/\.md$/i, '').toLowerCase();
  const name = entry.name.toLowerCase();
  if (name !== stem && name !== entry.file.toLowerCase()) {
    return { name: entry.name, description: entry.description };
  }
  const words = entry.description.split(/\s+/).filter(Boolean);
  if (words.length === 0) return undefined;
  const label = words
    .slice(0, LABEL_WORDS)
    .join(' ')
    .replace(/[.,;:!?]+$/, '');
  return { name: words.length > LABEL_WORDS ? `${label}…` : label, description: entry.description };
}

/**
 * A scan whose listing began this long after memory/'s mtime may key the persisted overview on
 * that mtime: a change made after the listing then moves the mtime even where the file system
 * stamps times coarsely (Linux updates them once a clock tick, 1–10 ms).
 */
export const RACY_MS = 100;

interface PersistedOverview {
  format: 1;
  /** memory/'s mtime when the overview was counted. */
  dirMtimeMs: number;
  overview: MemoryOverview;
}

/** The persisted overview when it was counted at memory/'s current mtime, else undefined. */
export function readPersistedOverview(file: string, dirMtimeMs: number): MemoryOverview | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as PersistedOverview;
    return parsed.format === 1 && parsed.dirMtimeMs === dirMtimeMs ? parsed.overview : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Persists an overview counted at `dirMtimeMs`, without fsync (it is derived: a torn file fails
 * to parse and the next scan writes it again).
 */
export function persistOverview(file: string, dirMtimeMs: number, overview: MemoryOverview): void {
  const data: PersistedOverview = { format: 1, dirMtimeMs, overview };
  writeDerivedFile(file, JSON.stringify(data));
}

/** Deletes a derived cache file that may be stale; failing leaves it to the key check. */
export function dropDerivedFile(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // An unwritable cache/ also kept it from being written.
  }
}

/** Writes a derived cache file: a temp file renamed over it; failing costs speed, not data. */
export function writeDerivedFile(file: string, text: string): void {
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(temp, text);
    renameSync(temp, file);
  } catch {
    rmSync(temp, { force: true });
  }
}
