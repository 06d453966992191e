import { mkdirSync, type Stats, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UserError } from './errors.js';

/**
 * `mkdir -p` that fails fast. Node's recursive mkdir loops forever under some trees (`/proc`:
 * every level says ENOENT); this walks up to the nearest existing ancestor, checks it is a
 * directory, and creates each level below it once, naming the path that failed.
 */
export function ensureDir(dir: string): void {
  const target = resolve(dir);
  const missing: string[] = [];
  let at = target;
  for (;;) {
    let stats: Stats | undefined;
    try {
      // throwIfNoEntry: a missing level is an answer here, and exceptions are slow.
      stats = statSync(at, { throwIfNoEntry: false });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        throw cannotCreate(target, at, code ?? (error as Error).message);
    }
    if (stats) {
      if (!stats.isDirectory()) throw cannotCreate(target, at, 'not a directory');
      break;
    }
    missing.push(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      throw cannotCreate(target, level, code ?? (error as Error).message);
    }
  }
}

function cannotCreate(target: string, at: string, why: string): UserError {
  return new UserError(
    `cannot create directory ${target}: ${at} ${why === 'not a directory' ? 'is not a directory' : `(${why})`}`,
    {
      code: 'DIR_UNWRITABLE',
      hint: `choose a directory you can write (the path given, or its parent ${dirname(target)}, must be creatable)`,
    },
  );
}

/** Throws a UserError naming `dir` when it is not an existing directory (for options that must not create it). */
export function requireDir(dir: string, option: string): void {
  let stats: Stats;
  try {
    stats = statSync(dir);
  } catch {
    throw new UserError(`${option} ${dir} does not exist`, {
      code: 'DIR_MISSING',
      hint: `give ${option} an existing directory (it is not created)`,
    });
  }
  if (!stats.isDirectory()) {
    throw new UserError(`${option} ${dir} is not a directory`, {
      code: 'DIR_MISSING',
      hint: `give ${option} an existing directory`,
    });
  }
}
