import { createHash } from 'node:crypto';
import { UserError } from '../../core/index.js';

/** Memory types are short identifiers: they become file-name prefixes and facet values. */
const TYPE_PATTERN = /^[a-z][a-z0-9_-]{0,39}$/;
const MAX_SLUG = 64;

/** Lower-cases and checks a memory type (`feedback`, `session_digest`). */
export function normalizeType(type: string): string {
  const t = type.trim().toLowerCase();
  if (!TYPE_PATTERN.test(t) || t === 'index') {
    throw new UserError(`type "${type}" is not a valid memory type`, {
      code: 'INVALID_ARGUMENT',
      hint: 'type: a short identifier such as user, feedback, caution, project, reference, note, session_digest (letters, digits, _ and -; not "index")',
    });
  }
  return t;
}

/**
 * A memory name to a safe file name inside memory/: `<type>_<slug>.md`, ASCII letters, digits
 * and `_` only, so no name can leave the directory, hide itself, or collide with MEMORY.md.
 * Names without any ASCII letter or digit get a short hash instead of a slug.
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
  const prefixed = base === type || base.startsWith(`${type}_`) ? base : `${type}_${base}`;
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
