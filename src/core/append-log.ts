import { appendFileSync, closeSync, fstatSync, openSync, readSync } from 'node:fs';
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
    const size = fstatSync(fd).size;
    // One byte before the window too: if it is a newline, the window starts with a whole line.
    const start = Math.max(0, size - maxBytes - 1);
    const buffer = Buffer.alloc(size - start);
    readSync(fd, buffer, 0, buffer.length, start);
    const lines = buffer.toString('utf8').split('\n');
    if (start > 0) lines.shift(); // the cut line, or the empty text before that newline
    return { lines: lines.filter((line) => line.trim() !== ''), size };
  } finally {
    closeSync(fd);
  }
}
