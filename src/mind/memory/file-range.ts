import { openSync, readSync } from 'node:fs';

/** A file opened for reading at offsets, or undefined when it cannot be (missing, unreadable). */
export function openForRanges(file: string): number | undefined {
  try {
    return openSync(file, 'r');
  } catch {
    return undefined;
  }
}

/** Bytes `from` to `to` of an open file, as UTF-8 text (what is there, if the file is shorter). */
export function readRange(fd: number, from: number, to: number): string {
  const buffer = Buffer.allocUnsafe(to - from);
  const n = readSync(fd, buffer, 0, buffer.length, from);
  return buffer.toString('utf8', 0, n);
}
