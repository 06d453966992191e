import type { MemoryEntry } from './entries.js';

/** The frontmatter field naming a memory's project (its identity's id); absent on global memories. */
export const PROJECT_ID_FIELD = 'project_id';
/** The frontmatter field with the project's name when the memory was written (shown, never matched). */
export const PROJECT_NAME_FIELD = 'project_name';

/** The project a mind works in, as memory sees it. */
export interface ProjectRef {
  id: string;
  name: string;
}

/**
 * Which memories a reader sees: the current project's and the global ones (`project`), only
 * the global ones (null: no project), or every project's (`'all'`).
 */
export type MemoryScope = ProjectRef | null | 'all';

/** The project id a memory carries, or undefined for a global one. */
export function projectOf(entry: Pick<MemoryEntry, 'fields'>): string | undefined {
  const id = entry.fields[PROJECT_ID_FIELD];
  return id === undefined || id === '' ? undefined : id;
}

/** True when a reader in `scope` sees the memory (the index file and global memories always). */
export function inScope(entry: Pick<MemoryEntry, 'fields'>, scope: MemoryScope): boolean {
  if (scope === 'all') return true;
  const id = projectOf(entry);
  return id === undefined || (scope !== null && id === scope.id);
}

/** A stable key for a scope (persisted overviews are kept per key). */
export function scopeKey(scope: MemoryScope): string {
  return scope === 'all' ? '*' : scope === null ? '' : scope.id;
}
