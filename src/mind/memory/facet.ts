import { UserError } from '../../core/index.js';
import type { MemoryEntry } from './entries.js';

/** A `key:value` filter; both sides compared lower-cased. */
export interface Facet {
  key: string;
  value: string;
}

/** Parses `key:value` (`type:feedback`, `relationship:bob`, `tag:portal`). */
export function parseFacet(text: string): Facet {
  const at = text.indexOf(':');
  const key = at > 0 ? text.slice(0, at).trim().toLowerCase() : '';
  const value =
    at > 0
      ? text
          .slice(at + 1)
          .trim()
          .toLowerCase()
      : '';
  if (!key || !value) {
    throw new UserError(`facet "${text}" is not key:value`, {
      code: 'INVALID_ARGUMENT',
      hint: 'facet: a frontmatter field or tag as key:value, e.g. type:feedback, relationship:bob, tag:portal',
    });
  }
  return { key, value };
}

/**
 * True when the memory's frontmatter field `key` equals `value` (or, for a list field,
 * contains it), or when it carries the tag `value` under `tag:`/`tags:`, or the tag `key:value`
 * itself (tags like `project:portal`).
 */
export function matchesFacet(entry: MemoryEntry, facet: Facet): boolean {
  const { key, value } = facet;
  if (key === 'type') return entry.type === value;
  if (key === 'name') return entry.name.toLowerCase() === value;
  const tags = entry.tags.map((t) => t.toLowerCase());
  if (key === 'tag' || key === 'tags') return tags.includes(value);
  if (tags.includes(`${key}:${value}`)) return true;
  if (entry.fields[key] === value) return true;
  return entry.listFields?.[key]?.includes(value) ?? false;
}
