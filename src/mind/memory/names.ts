import { createHash } from 'node:crypto';
import { typePrefix } from './types.js';

const MAX_SLUG = 64;

/**
 * A memory name to a safe file name inside memory/: `<type>_<slug>.md`, ASCII letters, digits
 * and `_` only, so no name can leave the directory, hide itself, or collide with MEMORY.md.
 * Names without any ASCII letter or digit get a short hash instead of a slug. A custom type's
 * files are prefixed with its own name (`custom:recipe` → `recipe_…`): no colon in file names.
 */
export function fileNameFor(type: string, name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, MAX_SLUG)
    .replace(/_+$/, '');
  const base = slug || `m_${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
  const prefix = typePrefix(type);
  const prefixed = base === prefix || base.startsWith(`${prefix}_`) ? base : `${prefix}_${base}`;
  return `${prefixed}.md`;
}

/** A one-line, bracket-safe title for the MEMORY.md index. */
export function indexTitle(name: string): string {
  return oneLine(name).replace(/([[\]\\])/g, '\\$1');
}

/** Collapses whitespace (newlines included) to single spaces and trims. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
