import { byCodeUnit } from '../../core/text/index.js';
import type { MemoryEntry } from './entries.js';
import type { ProjectRef } from './scope.js';

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
  /** The project this mind works in and how many of the memories counted are its own (the rest are global). */
  project?: { id: string; name: string; count: number };
  /** Memories of other projects, left out of every count above (recall finds them with all_projects). */
  other_projects_count?: number;
};

/** Caps keep the catalog's size independent of how many memories (or distinct types) exist. */
const MAX_KEYS = 24;

/** The catalog of `entries` (in any order) beside `skipped` files that were not readable. */
export function countCatalog(
  entries: readonly (Pick<MemoryEntry, 'type' | 'tags'> & { project?: string | undefined })[],
  skipped: number,
  scope: { project: ProjectRef | null; hidden: number } = { project: null, hidden: 0 },
): MemoryCatalog {
  const types = new Map<string, number>();
  const tags = new Map<string, number>();
  let indexPresent = false;
  let own = 0;
  for (const entry of entries) {
    if (scope.project && entry.project === scope.project.id) own++;
    if (entry.type === 'index') indexPresent = true;
    types.set(entry.type, (types.get(entry.type) ?? 0) + 1);
    for (const tag of entry.tags) tags.set(tag, (tags.get(tag) ?? 0) + 1);
  }
  const catalog: MemoryCatalog = {
    total_count: entries.length + skipped,
    index_present: indexPresent,
    category_counts: top(types),
    tag_counts: top(tags),
    skipped_count: skipped,
  };
  if (scope.project) catalog.project = { ...scope.project, count: own };
  if (scope.hidden > 0) catalog.other_projects_count = scope.hidden;
  return catalog;
}

/**
 * The memories a person counts: every file of `total_count` but the index (MEMORY.md is a file
 * the seed's catalog counts, not a memory). Human-facing text says this number (issue 38).
 */
export function memoriesCounted(catalog: Pick<MemoryCatalog, 'total_count' | 'index_present'>): number {
  return Math.max(0, catalog.total_count - (catalog.index_present ? 1 : 0));
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
