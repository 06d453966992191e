import {
  appendFileSync,
  closeSync,
  fstatSync,
  openSync,
  readSync,
  type Stats,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { ensureDir } from './dirs.js';

/**
 * Appends `line` and a newline in ONE write with O_APPEND: concurrent writers on a local file
 * system do not interleave within a write, and a killed process cannot tear a line it has
 * handed to the kernel. So small records need no lock. The directory is created if missing.
 */
export function appendLine(file: string, line: string): void {
  ensureDir(dirname(file));
  appendFileSync(file, `${line}\n`, { flag: 'a' });
}

/** The whole lines in the last bytes of a file, and the file's size. */
export interface Tail {
  lines: string[];
  size: number;
}

/**
 * The lines in the last `maxBytes` of `file`, oldest first; a line cut by the window's start is
 * dropped, blank lines are skipped. Undefined when the file does not exist; any other error
 * (EACCES, EISDIR, …) is thrown for the caller to name.
 */
export function readTailLines(file: string, maxBytes: number): Tail | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return readTailOf(fd, fstatSync(fd).size, maxBytes);
  } finally {
    closeSync(fd);
  }
}

/** {@link readTailLines} on an open descriptor whose size is known. */
export function readTailOf(fd: number, size: number, maxBytes: number): Tail {
  // One byte before the window too: if it is a newline, the window starts with a whole line.
  const start = Math.max(0, size - maxBytes - 1);
  const buffer = Buffer.alloc(size - start);
  readSync(fd, buffer, 0, buffer.length, start);
  const lines = buffer.toString('utf8').split('\n');
  if (start > 0) lines.shift(); // the cut line, or the empty text before that newline
  return { lines: lines.filter((line) => line.trim() !== ''), size };
}

/** What a {@link TailFollower} holds of its file: the parsed last lines, oldest first, and the file's size. */
export interface FollowedTail<T> {
  items: T[];
  size: number;
}

interface FollowedState<T> {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** The last whole line read, with its newline: where the file was appended to must still hold it. */
  lastLine: Buffer | undefined;
  tail: FollowedTail<T>;
}

/**
 * The last lines of an append-only file, kept between reads so a read costs a stat while the
 * file is unchanged and the appended bytes alone when it grew: a bootstrap_session that records
 * a session start then reads the log parses one line, not the last hundred. A file replaced
 * (another inode), shortened, rewritten in place (its last line read no longer where it was) or
 * ending in a partial line is read afresh from its last `maxBytes`. Each line is parsed once.
 * `beforeRead` runs before every read of the file's content (confinement checks).
 */
export class TailFollower<T> {
  private state: FollowedState<T> | undefined;

  constructor(
    private readonly file: string,
    private readonly options: {
      maxBytes: number;
      maxLines: number;
      parse: (line: string) => T;
      beforeRead?: (file: string) => void;
    },
  ) {}

  /** The tail as the file holds it now; undefined when the file does not exist. Errors (EACCES, …) are thrown. */
  read(): FollowedTail<T> | undefined {
    const st = statSync(this.file, { throwIfNoEntry: false });
    if (!st) {
      this.state = undefined;
      return undefined;
    }
    const known = this.state;
    const sameFile = known !== undefined && known.dev === st.dev && known.ino === st.ino;
    if (sameFile && known.size === st.size && known.mtimeMs === st.mtimeMs) return known.tail;
    this.options.beforeRead?.(this.file);
    const grown =
      sameFile && st.size > known.size && known.lastLine ? this.appended(known, st.size) : undefined;
    this.state = grown ?? this.fresh();
    return this.state?.tail;
  }

  /**
   * Appends `line` and a newline in one O_APPEND write (as {@link appendLine}, without creating
   * the directory) and takes it into the tail without reading the file back when the file held
   * exactly what was last read: its size after the write then says no other writer came between.
   */
  append(line: string): void {
    const bytes = Buffer.from(`${line}\n`);
    const fd = openSync(this.file, 'a');
    let st: Stats;
    try {
      writeSync(fd, bytes);
      st = fstatSync(fd);
    } finally {
      closeSync(fd);
    }
    const known = this.state;
    const before = known && known.dev === st.dev && known.ino === st.ino ? known : undefined;
    // After a partial last line, the file's last line is that fragment and this one run together.
    const cut = before !== undefined && before.size > 0 && !before.lastLine;
    if (st.size !== (before?.size ?? 0) + bytes.length || (known && !before) || cut) {
      this.state = undefined; // read afresh next time
      return;
    }
    this.state = this.stateOf(st, bytes, [...(before?.tail.items ?? []), this.options.parse(line)]);
  }

  /** What is known of the file once `st` was taken: its newest `maxLines` of `items`. */
  private stateOf(st: Stats, lastLine: Buffer | undefined, items: T[]): FollowedState<T> {
    const tail = { items: items.slice(-this.options.maxLines), size: st.size };
    return { dev: st.dev, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, lastLine, tail };
  }

  /** The state after reading only what was appended since `known`, or undefined when that is not what happened. */
  private appended(known: FollowedState<T>, size: number): FollowedState<T> | undefined {
    const last = known.lastLine!;
    const start = known.size - last.length;
    const buffer = Buffer.alloc(size - start);
    const fd = openSync(this.file, 'r');
    let st: Stats;
    try {
      st = fstatSync(fd);
      if (st.size !== size) return undefined;
      readSync(fd, buffer, 0, buffer.length, start);
    } finally {
      closeSync(fd);
    }
    if (!buffer.subarray(0, last.length).equals(last) || buffer[buffer.length - 1] !== NEWLINE)
      return undefined;
    const added = buffer.subarray(last.length);
    const items = [...known.tail.items];
    for (const line of added.toString('utf8').split('\n'))
      if (line.trim() !== '') items.push(this.options.parse(line));
    return this.stateOf(st, Buffer.from(added.subarray(lastLineStart(added))), items);
  }

  /** The state after reading the file's last `maxBytes` afresh. */
  private fresh(): FollowedState<T> | undefined {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      const st = fstatSync(fd);
      // One byte before the window too: if it is a newline, the window starts with a whole line.
      const start = Math.max(0, st.size - this.options.maxBytes - 1);
      const buffer = Buffer.alloc(st.size - start);
      readSync(fd, buffer, 0, buffer.length, start);
      const lines = buffer.toString('utf8').split('\n');
      if (start > 0) lines.shift(); // the cut line, or the empty text before that newline
      const items = lines.filter((line) => line.trim() !== '').map(this.options.parse);
      const whole = buffer[buffer.length - 1] === NEWLINE;
      const end = lastLineStart(buffer);
      // A partial last line (a disk that filled mid-write) leaves nothing to append after.
      const lastLine = whole && (end > 0 || start === 0) ? Buffer.from(buffer.subarray(end)) : undefined;
      return this.stateOf(st, lastLine, items);
    } finally {
      closeSync(fd);
    }
  }
}

const NEWLINE = 0x0a;

/** Where the last line of `buffer` (which ends with a newline) starts. */
function lastLineStart(buffer: Buffer): number {
  for (let i = buffer.length - 2; i >= 0; i--) if (buffer[i] === NEWLINE) return i + 1;
  return 0;
}
