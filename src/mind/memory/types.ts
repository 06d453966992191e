import { UserError } from '../../core/index.js';

/**
 * The memory types: a closed list, so a typo (`--type feedbak`) is refused instead of starting a
 * category of one. `session` holds running session state (`carry_forward.md`), `session_digest`
 * a finished session's summary. Anything else is spelled `custom:NAME`.
 */
export const MEMORY_TYPES = [
  'user',
  'feedback',
  'caution',
  'project',
  'reference',
  'note',
  'session',
  'session_digest',
] as const;

export type MemoryType = (typeof MEMORY_TYPES)[number];

/** The prefix of a type outside the list: `custom:recipe`. */
export const CUSTOM_TYPE_PREFIX = 'custom:';

/** A custom type's own name: short, lower-case, a file-name prefix. */
const CUSTOM_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

const KNOWN = new Set<string>(MEMORY_TYPES);

/** The valid spellings, for errors and help: `user, feedback, …, session_digest, or custom:NAME`. */
export function validTypesText(): string {
  return `${MEMORY_TYPES.join(', ')}, or custom:NAME`;
}

/**
 * Lower-cases and checks a memory type: one of {@link MEMORY_TYPES}, or `custom:NAME`
 * (`custom:note` is just `note`). The error names the valid types and the custom form.
 */
export function normalizeType(type: string): string {
  const t = String(type ?? '')
    .trim()
    .toLowerCase();
  if (KNOWN.has(t)) return t;
  if (t.startsWith(CUSTOM_TYPE_PREFIX)) {
    const own = t.slice(CUSTOM_TYPE_PREFIX.length);
    if (KNOWN.has(own)) return own;
    if (CUSTOM_NAME.test(own) && own !== 'index' && own !== 'custom') return `${CUSTOM_TYPE_PREFIX}${own}`;
    throw new UserError(`type "${type}" is not a valid custom type`, {
      code: 'INVALID_ARGUMENT',
      hint: 'type: custom:NAME, NAME a short identifier (a-z, digits, _ and -; at most 32 characters), e.g. custom:recipe',
    });
  }
  const suggestion = CUSTOM_NAME.test(t) && t !== 'index' ? ` (CLI: --type custom:${t})` : '';
  throw new UserError(`type "${type}" is not a memory type`, {
    code: 'INVALID_ARGUMENT',
    hint: `type: one of ${MEMORY_TYPES.join(', ')}; for another kind pass custom:NAME${suggestion}`,
  });
}

/** Whether a type read from a file is one `remember` would accept (older homes may hold others). */
export function isValidType(type: string): boolean {
  if (KNOWN.has(type)) return true;
  return type.startsWith(CUSTOM_TYPE_PREFIX) && CUSTOM_NAME.test(type.slice(CUSTOM_TYPE_PREFIX.length));
}

/** The file-name prefix of a type: itself, or a custom type's own name (`custom:recipe` → `recipe`). */
export function typePrefix(type: string): string {
  return type.startsWith(CUSTOM_TYPE_PREFIX) ? type.slice(CUSTOM_TYPE_PREFIX.length) : type;
}
