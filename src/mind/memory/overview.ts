import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { countCatalog, type MemoryCatalog } from './catalog.js';
import type { MemoryEntry } from './entries.js';
import { inScope, type MemoryScope, projectOf, scopeKey } from './scope.js';
import type { MemorySnapshot } from './store.js';

/** A person the packet names, from a `type: user` memory (a type, so it fits the packet's open object). */
export type MemoryPerson = {
  name: string;
  description: string;
};

/**
 * A memory the packet names in "relevant memories": its name, type and one-line description,
 * never its file name.
 */
export type RelevantMemory = {
  name: string;
  type: string;
  description: string;
};

/** What the bootstrap packet shows of memory/: constant size, whatever the memory count. */
export interface MemoryOverview {
  /** True when memory/ exists. */
  present: boolean;
  catalog: MemoryCatalog;
  /** The first `type: user` memories in listing order, at most {@link MAX_PEOPLE}. */
  people: MemoryPerson[];
  /**
   * The instructions and cautions in force (type feedback or caution, neither proposed nor
   * superseded), this project's first, then the global ones, newest first; at most
   * {@link MAX_INSTRUCTIONS}.
   */
  instructions: RelevantMemory[];
  /** Files skipped as unreadable or malformed. */
  problemCount: number;
}

const MAX_PEOPLE = 12;
/** Instructions the packet names at most (the rest are a recall away). */
export const MAX_INSTRUCTIONS = 8;
/** Memory types that tell the agent how to act: the ones the packet names first. */
export const INSTRUCTION_TYPES: ReadonlySet<string> = new Set(['feedback', 'caution']);
/** Words of a description that label a person whose memory has no `name:`. */
const LABEL_WORDS = 6;

const bySnapshot = new WeakMap<MemorySnapshot, Map<string, MemoryOverview>>();

/** What an overview needs of one memory's entry (`project`: its project id; none for a global memory). */
export type OverviewEntry = Pick<MemoryEntry, 'file' | 'type' | 'tags' | 'name' | 'description'> & {
  project?: string | undefined;
  /** For instructions: when the file was last written (newest first). */
  mtimeMs?: number;
  /** Proposed (review mode) or superseded: not a fact in force, never named as one. */
  inactive?: boolean;
};

/** Whether an entry no longer (or not yet) states a fact in force. */
export function isInactive(entry: Pick<MemoryEntry, 'fields'>): boolean {
  return entry.fields.status === 'proposed' || entry.fields.superseded_by !== undefined;
}

/**
 * The overview of a snapshot as a reader in `scope` sees it (other projects' memories are
 * counted apart, never shown); memoised per snapshot and scope (a pass over 10,000 entries otherwise).
 */
export function overviewOf(snapshot: MemorySnapshot, scope: MemoryScope = null): MemoryOverview {
  let byScope = bySnapshot.get(snapshot);
  if (!byScope) {
    byScope = new Map();
    bySnapshot.set(snapshot, byScope);
  }
  const key = scopeKey(scope);
  let overview = byScope.get(key);
  if (!overview) {
    const entries = snapshot.entries.map(
      (e): OverviewEntry => ({ ...e, project: projectOf(e), inactive: isInactive(e) }),
    );
    overview = { ...countOverview(entries, snapshot.problems.length, scope), present: snapshot.present };
    byScope.set(key, overview);
  }
  return overview;
}

/**
 * The overview of a present memory/ from its entries in listing order and a count of skipped
 * files, as a reader in `scope` sees it.
 */
export function countOverview(
  all: readonly OverviewEntry[],
  problemCount: number,
  scope: MemoryScope = null,
): MemoryOverview {
  const entries = scope === 'all' ? all : all.filter((e) => inScope({ fields: fieldsOf(e) }, scope));
  const project = scope === 'all' ? null : scope;
  return {
    present: true,
    catalog: countCatalog(entries, problemCount, { project, hidden: all.length - entries.length }),
    people: peopleOf(entries),
    instructions: instructionsOf(entries),
    problemCount,
  };
}

function fieldsOf(entry: OverviewEntry): Record<string, string> {
  return entry.project === undefined ? {} : { project_id: entry.project };
}

/** This project's instructions before the global ones, each group newest first, at most MAX_INSTRUCTIONS. */
function instructionsOf(entries: readonly OverviewEntry[]): RelevantMemory[] {
  const kept = entries.filter((e) => INSTRUCTION_TYPES.has(e.type) && !e.inactive && e.name !== '');
  kept.sort(
    (a, b) =>
      Number(b.project !== undefined) - Number(a.project !== undefined) ||
      (b.mtimeMs ?? 0) - (a.mtimeMs ?? 0) ||
      (a.file < b.file ? -1 : 1),
  );
  return kept
    .slice(0, MAX_INSTRUCTIONS)
    .map((e) => ({ name: e.name, type: e.type, description: e.description }));
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
  format: 3;
  /** memory/'s mtime when the overviews were counted. */
  dirMtimeMs: number;
  /** The overview per scope (scopeKey): the projects whose sessions started lately. */
  byScope: Record<string, MemoryOverview>;
}

/** Scopes a persisted overview file keeps at once (one home serves a few projects in turn). */
const MAX_PERSISTED_SCOPES = 8;

function readPersisted(file: string, dirMtimeMs: number): PersistedOverview | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as PersistedOverview;
    return parsed.format === 3 && parsed.dirMtimeMs === dirMtimeMs && parsed.byScope ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The persisted overview for `scope` when it was counted at memory/'s current mtime, else undefined. */
export function readPersistedOverview(
  file: string,
  dirMtimeMs: number,
  scope: MemoryScope = null,
): MemoryOverview | undefined {
  return readPersisted(file, dirMtimeMs)?.byScope[scopeKey(scope)];
}

/**
 * Persists an overview counted at `dirMtimeMs` for `scope`, beside the other scopes' counted
 * at the same mtime, without fsync (it is derived: a torn file fails to parse and the next
 * scan writes it again).
 */
export function persistOverview(
  file: string,
  dirMtimeMs: number,
  overview: MemoryOverview,
  scope: MemoryScope = null,
): void {
  const byScope = { ...(readPersisted(file, dirMtimeMs)?.byScope ?? {}) };
  const key = scopeKey(scope);
  delete byScope[key];
  byScope[key] = overview;
  const keys = Object.keys(byScope);
  for (const old of keys.slice(0, Math.max(0, keys.length - MAX_PERSISTED_SCOPES))) delete byScope[old];
  const data: PersistedOverview = { format: 3, dirMtimeMs, byScope };
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
