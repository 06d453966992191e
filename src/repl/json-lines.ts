import type { Readable } from 'node:stream';

/**
 * Calls `onLine` for each newline-terminated line read from `stream`. Chunks are kept in a list
 * and joined only when a newline arrives, so a multi-megabyte message costs one copy, not one
 * per chunk.
 */
export function readLines(stream: Readable, onLine: (line: string) => void): void {
  let pending: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => {
    let start = 0;
    let index = chunk.indexOf(10);
    while (index !== -1) {
      const piece = chunk.subarray(start, index);
      const line =
        pending.length > 0 ? Buffer.concat([...pending, piece]).toString('utf8') : piece.toString('utf8');
      pending = [];
      if (line.length > 0) onLine(line);
      start = index + 1;
      index = chunk.indexOf(10, start);
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  });
}
