/**
 * A memory name that matches nothing answers with the close ones (`memory show squash` →
 * "Squash merges only"), from the names and file names the command could have meant.
 */
import { NotFoundError } from '../../core/index.js';
import { closest } from '../suggest.js';

/** Runs `lookup`; a NOT_FOUND it throws gains the close names from `candidates` in its fix. */
export async function withNameSuggestions<T>(
  wanted: string,
  candidates: () => readonly string[] | Promise<readonly string[]>,
  lookup: () => T | Promise<T>,
): Promise<T> {
  try {
    return await lookup();
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    const close = closest(wanted, await candidates());
    if (close.length === 0) throw error;
    const list = close.map((name) => JSON.stringify(name)).join(', ');
    throw new NotFoundError(
      error.message,
      `did you mean ${close.length === 1 ? list : `one of ${list}`}?${error.hint ? ` Else ${error.hint}` : ''}`,
    );
  }
}

/**
 * The one memory the close names all belong to (`alex` → user_alex.md, named "Alex Rivera"),
 * else undefined: for a read, where showing the only match beats refusing it (issue 38).
 */
export function onlyMatch(
  wanted: string,
  entries: readonly { name: string; file: string; type: string }[],
): { file: string; name: string } | undefined {
  const memories = entries.filter((entry) => entry.type !== 'index');
  const fileOf = new Map(
    memories.flatMap((e) => [[e.name, e] as const, [e.file.replace(/\.md$/, ''), e] as const]),
  );
  const matched = new Set(
    closest(wanted, [...fileOf.keys()], Number.MAX_SAFE_INTEGER).map((n) => fileOf.get(n)),
  );
  const [only] = matched;
  return matched.size === 1 && only ? { file: only.file, name: only.name } : undefined;
}

/** The names and file names (without `.md`) of the memories a store holds. */
export function memoryNames(entries: readonly { name: string; file: string; type: string }[]): string[] {
  return entries
    .filter((entry) => entry.type !== 'index')
    .flatMap((entry) => [entry.name, entry.file.replace(/\.md$/, '')]);
}
