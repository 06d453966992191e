/**
 * What a one-shot process (the SessionStart hook) parsed from a small file, kept under the home's
 * `cache/` so the next one takes it without loading the parser: the settings (YAML and a zod
 * schema), the resumption state (a zod schema) and the guidance docs' frontmatter (YAML) cost
 * the hook more to load than to read.
 *
 * A cache file (`cache/parsed-<name>.json`) holds, per source, the parsed value beside the
 * source's stamp (size, mtime, ctime, inode; or "missing"), and once the code that parsed them
 * (the package version and the build's id: an upgrade or a rebuild re-parses). A value is reused
 * only while all of these match. The cache is derived: a torn, foreign or stale
 * file is a miss, and a write that fails leaves the next process to parse again.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, type Stats, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageRoot } from './package-root.js';

/** The cache file's own layout; a change makes every older file a miss. */
const FORMAT = 1;

/**
 * A source changed this recently may change again within the same mtime tick without moving its
 * stamp (same size, same times where the file system stamps coarsely): its value is not cached
 * (the memory overview's rule, RACY_MS there).
 */
export const PARSED_RACY_MS = 100;

/** Entries one cache file keeps (the guidance docs share one: embedded, home and project layers). */
const MAX_ENTRIES = 64;

interface CacheFile<T> {
  format: number;
  code: string;
  /** By source key (its path unless the caller keys it otherwise), oldest written first. */
  entries: Record<string, { stamp: string; value: T }>;
}

/** A source's stamp: a write in place or by rename changes at least one of these. */
function stampOf(st: Stats | undefined): string {
  return st ? `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}` : 'missing';
}

let codeKey: string | undefined;

/**
 * The parsing code's identity, the same for every entry point of one install (the hook's
 * bundles, the CLI, the servers share the cache): the package version and the id every build
 * writes (`dist/cli/build-id.txt`, scripts/bundle.mjs), so an upgrade or a rebuild re-parses.
 */
function currentCode(): string {
  if (codeKey !== undefined) return codeKey;
  const root = packageRoot();
  const read = (path: string, fallback: string) => {
    try {
      return readFileSync(join(root, path), 'utf8');
    } catch {
      return fallback;
    }
  };
  let version = '?';
  try {
    version = String((JSON.parse(read('package.json', '{}')) as { version?: string }).version);
  } catch {
    // An unreadable package.json: the build id alone keys the code.
  }
  codeKey = `${version}:${read(join('dist', 'cli', 'build-id.txt'), 'unbuilt').trim()}`;
  return codeKey;
}

/** The cache file for sources `name` (`settings`, `self-state`, `guidance`) under a home's `cache/`. */
export function parsedCacheFile(cacheDir: string, name: string): string {
  return join(cacheDir, `parsed-${name}.json`);
}

/**
 * `parse(file)`'s value, from `cacheFile` while `file` and the code are unchanged, else parsed
 * and stored under `key` (default: the path). `parse` must give the same value for the same
 * bytes (or the same absence). Pass a function that calls the parser (`(f) => parse(f)`), not
 * the parser itself: in the hook's bundles the parser's module loads when first read. A value
 * JSON cannot carry exactly (an Infinity, an undefined, a class instance) is returned but not
 * stored.
 */
export function cachedParse<T>(
  file: string,
  cacheFile: string,
  parse: (file: string) => T,
  key: string = file,
): T {
  const before = statSync(file, { throwIfNoEntry: false });
  const stamp = stampOf(before);
  const code = currentCode();
  const cache = readCache<T>(cacheFile, code);
  const hit = cache?.entries[key];
  if (hit && hit.stamp === stamp) return hit.value;
  const value = parse(file);
  // Stamped before the read and again after it: a write landing meanwhile is not cached.
  const after = statSync(file, { throwIfNoEntry: false });
  const racy = before !== undefined && Date.now() - Math.max(before.mtimeMs, before.ctimeMs) < PARSED_RACY_MS;
  const keep = stampOf(after) === stamp && !racy && isJsonExact(value);
  // Nothing to store and nothing stale to drop: no write.
  if (!keep && !hit) return value;
  const entries = { ...(cache?.entries ?? {}) };
  delete entries[key];
  if (keep) entries[key] = { stamp, value };
  const keys = Object.keys(entries);
  for (const old of keys.slice(0, Math.max(0, keys.length - MAX_ENTRIES))) delete entries[old];
  writeCache(cacheFile, { format: FORMAT, code, entries });
  return value;
}

/**
 * The value kept under `key` in `cacheFile`, with the stamp it was kept with, while the code is
 * unchanged: for a derived value whose caller judges its freshness itself (the events' recall
 * index stamps each day file inside its value and brings it up to date from there).
 */
export function readCachedValue<T>(cacheFile: string, key: string): { stamp: string; value: T } | undefined {
  return readCache<T>(cacheFile, currentCode())?.entries[key];
}

/**
 * Keeps `value` (plain data: JSON must carry it exactly) under `key` in `cacheFile`, written as
 * cachedParse writes (by rename; a failure leaves the next process to derive it again).
 */
export function writeCachedValue<T>(cacheFile: string, key: string, stamp: string, value: T): void {
  const code = currentCode();
  const entries = { ...(readCache<T>(cacheFile, code)?.entries ?? {}) };
  delete entries[key];
  entries[key] = { stamp, value };
  const keys = Object.keys(entries);
  for (const old of keys.slice(0, Math.max(0, keys.length - MAX_ENTRIES))) delete entries[old];
  writeCache(cacheFile, { format: FORMAT, code, entries });
}

function readCache<T>(cacheFile: string, code: string): CacheFile<T> | undefined {
  try {
    const parsed = JSON.parse(readFileSync(cacheFile, 'utf8')) as Partial<CacheFile<T>> | null;
    if (parsed?.format !== FORMAT || parsed.code !== code) return undefined;
    const entries = parsed.entries;
    return typeof entries === 'object' && entries !== null && !Array.isArray(entries)
      ? (parsed as CacheFile<T>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Written by rename (a reader sees the old file or the new one, never half of either), without
 * a lock (a lost race loses an entry: the next process parses it again) or fsync (derived: a
 * torn file after a crash is a miss). `cache/` is made inside an existing home only: reading a
 * home's defaults does not create the home.
 */
function writeCache<T>(cacheFile: string, data: CacheFile<T>): void {
  const temp = `${cacheFile}.${process.pid}.${Date.now()}.tmp`;
  try {
    mkdirSync(dirname(cacheFile));
  } catch {
    // It exists, or the home does not (then the write below fails too).
  }
  try {
    writeFileSync(temp, JSON.stringify(data));
    renameSync(temp, cacheFile);
  } catch {
    rmSync(temp, { force: true });
  }
}

/** True when JSON.stringify then JSON.parse gives back an equal value (plain data only). */
export function isJsonExact(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!(i in value) || !isJsonExact(value[i])) return false;
    return true;
  }
  if (typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  if (Object.getOwnPropertySymbols(value).length > 0) return false;
  return Object.values(value).every(isJsonExact);
}
