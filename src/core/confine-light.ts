/**
 * Confinement of state files, and the append-only log through it. Light on purpose (no lock or
 * atomic-write library): the tool hooks load it on every call. The writers are in confine.ts.
 */
import { lstatSync, realpathSync, type Stats, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { appendLine, readTailLines, type Tail } from './append-log.js';
import { ensureDir } from './dirs.js';
import { UserError } from './errors.js';

/**
 * A state file firstlight will not touch: a symlink leading out of its directory, or something
 * that is not a regular file (a FIFO would hang a read, a device would be written to).
 */
export class UnsafeFileError extends UserError {
  readonly file: string;
  constructor(file: string, why: string) {
    super(`refused ${file}: ${why}`, {
      code: 'UNSAFE_FILE',
      hint: `replace ${file} with a regular file, or delete it (state files are never symlinks out of their directory, FIFOs or devices)`,
    });
    this.file = file;
  }
}

/** What a special file is, or undefined for a regular file or a directory (the OS names those: EISDIR). */
function special(stats: Stats): string | undefined {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return undefined;
}

const inside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/**
 * Checks a state file before it is read or written: absent is fine (it will be created); a
 * regular file is fine (a directory is left to fail as the OS says, EISDIR); a symlink is fine
 * only when it resolves inside the file's own directory; a FIFO, socket or device never. Anything else throws {@link UnsafeFileError} naming the path. Every
 * read and write of a state file (taskspace, REPL states, self-state, sessions, events, the
 * install manifest, the runtime's journal and handoffs) goes through here.
 */
export function confineFile(file: string): void {
  // throwIfNoEntry: absent is common (a file about to be created), and exceptions are slow.
  const link = lstatSync(file, { throwIfNoEntry: false });
  if (!link) return;
  if (link.isSymbolicLink()) {
    const dir = dirname(resolve(file));
    let target: string;
    try {
      target = realpathSync(file);
    } catch {
      throw new UnsafeFileError(file, 'a symlink that leads nowhere');
    }
    let root: string;
    try {
      root = realpathSync(dir);
    } catch {
      root = dir;
    }
    if (!inside(root, target)) throw new UnsafeFileError(file, `a symlink to ${target}, outside ${dir}`);
    const kind = special(statSync(target));
    if (kind) throw new UnsafeFileError(file, `a symlink to ${kind}`);
    return;
  }
  const kind = special(link);
  if (kind) throw new UnsafeFileError(file, `${kind}, not a regular file`);
}

/** {@link readTailLines} for a state file: confined first. */
export function readStateTail(file: string, maxBytes: number): Tail | undefined {
  confineFile(file);
  return readTailLines(file, maxBytes);
}

/** {@link appendLine} for a state file: confined first (the directory is created if missing). */
export function appendStateLine(file: string, line: string): void {
  ensureDir(dirname(file));
  confineFile(file);
  appendLine(file, line);
}
