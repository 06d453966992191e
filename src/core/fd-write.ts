import { writeSync } from 'node:fs';

/**
 * Writes all of `text` to a file descriptor (1 for stdout, 2 for stderr) at once, waiting out a
 * full non-blocking pipe (EAGAIN); a closed one (EPIPE: `… | head`) ends it quietly. For
 * short-lived commands on a latency budget (hooks, a one-shot recall): process.stdout and
 * process.stderr are streams Node sets up on first use, which cost more than the write.
 */
export function writeAllSync(fd: number, text: string): void {
  let rest = Buffer.from(text, 'utf8');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') return;
      if (code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}
