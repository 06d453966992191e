import { byCodeUnit } from '../../core/text/index.js';
import type { MemoryEntry } from './entries.js';
import type { MemorySnapshot } from './store.js';

/** The packet's view of memory: counts only, never a filename, constant size. */
export type MemoryCatalog = {
  /** Memory markdown files in memory/ (the index file included, as the seed counts it). */
  total_count: number;
  index_present: boolean;
  /** Files per frontmatter `type` (`index` for MEMORY.md, `unknown` without one, as the seed's catalog counts); top 24. */
  category_counts: Record<string, number>;
  /** Most used tags, top 24. */
  tag_counts: Record<string, number>;
  /** Files skipped as unreadable or malformed. */
  skipped_count: number;
};

/** Caps keep the catalog's size independent of how many memories (or distinct types) exist. */
const MAX_KEYS = 24;

const byVersion = new WeakMap<MemorySnapshot, MemoryCatalog>();

/** Counts a snapshot into a catalog; memoised per snapshot. */
export function catalogOf(snapshot: MemorySnapshot): MemoryCatalog {
  const hit = byVersion.get(snapshot);
  if (hit) return hit;
  const catalog = countCatalog(snapshot.entries, snapshot.problems.length);
  byVersion.set(snapshot, catalog);
  return catalog;
}

/** The catalog of `entries` (in any order) beside `skipped` files that were not readable. */
export function countCatalog(
  entries: readonly Pick<MemoryEntry, 'type' | 'tags'>[],
  skipped: number,
): MemoryCatalog {
  const types = new Map<string, number>();
  const tags = new Map<string, number>();
  let indexPresent = false;
  for (const entry of entries) {
    if (entry.type === 'index') indexPresent = true;
    types.set(entry.type, (types.get(entry.type) ?? 0) + 1);
    for (const tag of entry.tags) tags.set(tag, (tags.get(tag) ?? 0) + 1);
  }
  return {
    total_count: entries.length + skipped,
    index_present: indexPresent,
    category_counts: top(types),
    tag_counts: top(tags),
    skipped_count: skipped,
  };
}

function top(counts: Map<string, number>): Record<string, number> {
  const sorted = [...counts.entries()].sort((a, b) => b[1] - a[1] || byCodeUnit(a[0], b[0]));
  const out: Record<string, number> = {};
  let other = 0;
  sorted.forEach(([key, count], i) => {
    if (i < MAX_KEYS) out[key.slice(0, 40)] = count;
    else other += count;
  });
  if (other > 0) out['(other)'] = other;
  return out;
}
