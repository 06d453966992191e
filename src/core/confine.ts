/**
 * The one confinement rule for every path firstlight reads, writes or moves on the model's
 * behalf (memory files, imports, guidance overrides, persona includes, state files): the path
 * resolves inside its directory (`root`), and it is a regular file — no symlink out, no FIFO, no
 * device, no socket. The check happens at the moment of use: a file is opened with O_NOFOLLOW
 * and the descriptor is fstat'ed (and, past one path level, its real location read back from
 * /proc/self/fd), so nothing can be swapped between a check and the open. Writes go to a temp
 * file made with O_EXCL|O_NOFOLLOW and renamed over the target, which never writes through a
 * link. A symlink that stays inside `root` is followed. Light on purpose (node built-ins only):
 * the tool hooks load it on every call.
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  renameSync,
  type Stats,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { open as openAsync, rename as renameAsync, unlink as unlinkAsync } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { readTailOf, type Tail } from './append-log.js';
import { ensureDir } from './dirs.js';
import { UserError } from './errors.js';

/**
 * A file firstlight will not touch: a path or symlink leading out of its directory, or something
 * that is not a regular file (a FIFO would hang a read, a device would be written to).
 */
export class UnsafeFileError extends UserError {
  readonly file: string;
  constructor(file: string, why: string) {
    super(`refused ${file}: ${why}`, {
      code: 'UNSAFE_FILE',
      hint: `replace ${file} with a regular file, or delete it (firstlight never follows a symlink out of its directory, nor reads or writes a FIFO or a device)`,
    });
    this.file = file;
  }
}

const { O_RDONLY, O_WRONLY, O_APPEND, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = constants;
/** Where Linux shows an open descriptor's real path; absent elsewhere (then realpath stands in). */
const FD_LINKS = process.platform === 'linux' ? '/proc/self/fd' : undefined;

/** What a special file is, or undefined for a regular file. */
function special(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a directory';
  return 'not a regular file';
}

/**
 * Whether `path` is `root` or below it (each resolved from the working directory first). A
 * prefix test on the resolved paths: `path.relative` resolves both sides again and cost the
 * tool hooks microseconds a call.
 */
export function isInside(root: string, path: string): boolean {
  return below(resolve(root), resolve(path)) !== undefined;
}

/** What follows `root` in `path` ('' for root itself), or undefined when path is not inside it. */
function below(root: string, path: string): string | undefined {
  if (path === root) return '';
  const prefix = root.endsWith(sep) ? root : `${root}${sep}`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : undefined;
}

function realOr(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

/**
 * `file`'s place under `root` (default: its own directory): absolute, and lexically inside root.
 * A relative `file` is taken from root. Throws {@link UnsafeFileError} for `..` or an absolute
 * path that leaves it.
 */
export function confinedPath(file: string, root?: string): { path: string; root: string; nested: boolean } {
  const path = root === undefined ? resolve(file) : resolve(root, file);
  const base = root === undefined ? dirname(path) : resolve(root);
  const rel = below(base, path);
  if (!rel) throw new UnsafeFileError(file, `a path outside ${base}`);
  return { path, root: base, nested: rel.includes(sep) };
}

/** Where an open descriptor really is (Linux), else undefined. */
function fdPath(fd: number): string | undefined {
  if (!FD_LINKS) return undefined;
  try {
    return readlinkSync(`${FD_LINKS}/${fd}`);
  } catch {
    return undefined;
  }
}

/**
 * Opens `file` confined to `root` (default: its directory) for reading or appending, and returns
 * the descriptor with its fstat; undefined when the file does not exist (for `append`, it is
 * created, never through a link). A symlink is followed only when its target is inside root.
 */
export function openConfined(
  file: string,
  options: { root?: string; mode?: 'read' | 'append' } = {},
): { fd: number; stats: Stats } | undefined {
  const { path, root, nested } = confinedPath(file, options.root);
  const flags =
    options.mode === 'append'
      ? O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK
      : O_RDONLY | O_NOFOLLOW | O_NONBLOCK;
  let fd: number;
  let followed = false;
  try {
    fd = openSync(path, flags, 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && options.mode !== 'append') return undefined;
    if (code === 'ENXIO') throw new UnsafeFileError(file, 'a FIFO, not a regular file');
    if (code !== 'ELOOP' && code !== 'EMLINK') throw error;
    fd = openThroughLink(file, path, root, flags);
    followed = true;
  }
  try {
    const stats = fstatSync(fd);
    // A directory is left to fail as the OS says (EISDIR at the read) where a caller expects a file.
    const kind = stats.isDirectory() ? undefined : special(stats);
    if (kind)
      throw new UnsafeFileError(file, followed ? `a symlink to ${kind}` : `${kind}, not a regular file`);
    if (nested || followed) {
      // Past one level (or through a link) a directory on the way could have been swapped.
      const real = fdPath(fd) ?? realOr(path);
      const realRoot = realOr(root);
      if (!isInside(realRoot, real)) throw new UnsafeFileError(file, `resolves to ${real}, outside ${root}`);
    }
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Opens the target of the symlink at `path`, when it lies inside root. */
function openThroughLink(file: string, path: string, root: string, flags: number): number {
  let target: string;
  try {
    target = realpathSync.native(path);
  } catch {
    throw new UnsafeFileError(file, 'a symlink that leads nowhere');
  }
  if (!isInside(realOr(root), target))
    throw new UnsafeFileError(file, `a symlink to ${target}, outside ${root}`);
  try {
    return openSync(target, flags & ~O_CREAT, 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK' || code === 'ENOENT')
      throw new UnsafeFileError(file, 'a symlink that changed while it was opened');
    if (code === 'ENXIO') throw new UnsafeFileError(file, 'a symlink to a FIFO');
    throw error;
  }
}

/** A file too large for its reader. */
export class FileTooLargeError extends UserError {
  constructor(file: string, size: number, max: number) {
    super(`refused ${file}: ${size} bytes is over the ${max}-byte limit`, {
      code: 'FILE_TOO_LARGE',
      hint: `split or trim ${file}`,
    });
  }
}

/**
 * Reads `file` confined to `root` (default: its directory) as UTF-8; undefined when it does not
 * exist. `maxBytes` refuses a larger file before reading it.
 */
export function readConfined(
  file: string,
  options: { root?: string; maxBytes?: number } = {},
): string | undefined {
  const opened = openConfined(file, options.root !== undefined ? { root: options.root } : {});
  if (!opened) return undefined;
  try {
    return readOpened(file, opened.fd, opened.stats.size, options.maxBytes).toString('utf8');
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * Up to `bytes` from the start of an open file. A file whose size says 0 (/proc files, which
 * never get here confined, say so too) is read until its end, within `maxBytes`.
 */
export function readOpened(
  file: string,
  fd: number,
  size: number,
  maxBytes = Number.POSITIVE_INFINITY,
): Buffer {
  if (size > maxBytes) throw new FileTooLargeError(file, size, maxBytes);
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    // The size fstat gave, then small reads only to see whether it grew (or had none: /proc).
    const want = total < size ? Math.min(size - total, 1 << 20) : 65_536;
    const buffer = Buffer.alloc(want);
    const read = readSync(fd, buffer, 0, want, null);
    if (read === 0) break;
    total += read;
    if (total > maxBytes) throw new FileTooLargeError(file, total, maxBytes);
    chunks.push(read === want ? buffer : buffer.subarray(0, read));
  }
  return Buffer.concat(chunks, total);
}

/**
 * Checks a file before a path-based operation (a rename, a lock): absent is fine; a regular file
 * is fine; a symlink only when its target is a regular file inside root (default: the file's
 * directory); anything else throws {@link UnsafeFileError}. Opening goes through
 * {@link openConfined}, which checks again at the moment of use.
 */
export function confineFile(file: string, root?: string): void {
  const { path, root: base } = confinedPath(file, root);
  const link = lstatSync(path, { throwIfNoEntry: false });
  if (!link) return;
  if (link.isSymbolicLink()) {
    let target: string;
    try {
      target = realpathSync.native(path);
    } catch {
      throw new UnsafeFileError(file, 'a symlink that leads nowhere');
    }
    if (!isInside(realOr(base), target))
      throw new UnsafeFileError(file, `a symlink to ${target}, outside ${base}`);
    const kind = special(lstatSync(target));
    if (kind) throw new UnsafeFileError(file, `a symlink to ${kind}`);
    return;
  }
  const kind = special(link);
  // A directory is left to fail as the OS says (EISDIR) where the caller expects one.
  if (kind && !link.isDirectory()) throw new UnsafeFileError(file, `${kind}, not a regular file`);
}

/** Where a confined write lands: the file itself, or the in-root target of its symlink. */
function writeTarget(file: string, root: string | undefined): { target: string; mode: number | undefined } {
  const { path } = confinedPath(file, root);
  const link = lstatSync(path, { throwIfNoEntry: false });
  if (!link) return { target: path, mode: undefined };
  if (link.isSymbolicLink()) {
    confineFile(file, root);
    const target = realpathSync.native(path);
    return { target, mode: lstatSync(target).mode & 0o7777 };
  }
  const kind = special(link);
  if (kind) throw new UnsafeFileError(file, `${kind}, not a regular file`);
  return { target: path, mode: link.mode & 0o7777 };
}

let writes = 0;
/** A temp name beside the target, as leftovers.ts recognises it (`name.md.<digits>`). */
function tempFor(target: string): string {
  writes = (writes + 1) % 65_536;
  return join(dirname(target), `${basename(target)}.${((process.pid % 65_536) * 65_536 + writes) >>> 0}`);
}

export interface ConfinedWriteOptions {
  root?: string;
  /** fsync before the rename (default true). */
  fsync?: boolean;
  /** The permissions of a new file; an existing file keeps its own. */
  mode?: number;
}

/**
 * Writes `file` atomically, confined: a temp file created with O_EXCL|O_NOFOLLOW beside it,
 * fsync, rename over it. A rename replaces a link rather than writing through it, so a link
 * swapped in after the check is replaced, never followed; an in-root link is written through
 * to its target, as before. The directory is created when missing.
 */
export function writeConfinedSync(
  file: string,
  content: string | Buffer,
  options: ConfinedWriteOptions = {},
): void {
  ensureDir(dirname(resolve(file)));
  const { target, mode } = writeTarget(file, options.root);
  const temp = tempFor(target);
  const fd = openSync(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode ?? options.mode ?? 0o666);
  try {
    try {
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
      if (options.fsync ?? true) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // renamed already, or never made
    }
    throw error;
  }
}

/** Asynchronous twin of {@link writeConfinedSync} (no event-loop stall on a large file). */
export async function writeConfined(
  file: string,
  content: string | Buffer,
  options: ConfinedWriteOptions = {},
): Promise<void> {
  ensureDir(dirname(resolve(file)));
  const { target, mode } = writeTarget(file, options.root);
  const temp = tempFor(target);
  const handle = await openAsync(
    temp,
    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
    mode ?? options.mode ?? 0o666,
  );
  try {
    try {
      await handle.writeFile(content);
      if (options.fsync ?? true) await handle.sync();
    } finally {
      await handle.close();
    }
    await renameAsync(temp, target);
  } catch (error) {
    await unlinkAsync(temp).catch(() => undefined);
    throw error;
  }
}

/** A state file's text (confined to its directory), or undefined when it does not exist. */
export function readStateFile(file: string): string | undefined {
  return readConfined(file);
}

/** Writes a state file atomically, confined to its directory. */
export async function writeStateFile(file: string, content: string | Buffer): Promise<void> {
  await writeConfined(file, content);
}

/** Synchronous twin of {@link writeStateFile}. */
export function writeStateFileSync(file: string, content: string | Buffer): void {
  writeConfinedSync(file, content);
}

/** {@link readTailLines} for a state file: confined first. */
export function readStateTail(file: string, maxBytes: number): Tail | undefined {
  const opened = openConfined(file);
  if (!opened) return undefined;
  try {
    return readTailOf(opened.fd, opened.stats.size, maxBytes);
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * Appends `line` and a newline to a state file in ONE write with O_APPEND (concurrent writers do
 * not interleave within a write), opened confined; the directory is created if missing.
 */
export function appendStateLine(file: string, line: string): void {
  const path = resolve(file);
  ensureDir(dirname(path));
  const opened = openConfined(path, { mode: 'append' });
  if (!opened) return;
  try {
    writeSync(opened.fd, `${line}\n`);
  } finally {
    closeSync(opened.fd);
  }
}
