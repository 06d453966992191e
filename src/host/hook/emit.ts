/**
 * The only code in src/host that writes to stdout or stderr or picks a hook's exit code. Each
 * function names its intent; handlers and adapters only return values.
 *
 * Writes go straight to the file descriptors (writeSync): process.stdout and process.stderr are
 * streams Node sets up on first use, which cost a hook more than the write.
 */
import { writeSync } from 'node:fs';
import type { HookOutput } from '../types.js';

/** Writes all of `text` to `fd`, waiting out a full non-blocking pipe (EAGAIN); a closed one (EPIPE) ends it. */
function writeAll(fd: number, text: string): void {
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

/** Writes a formatted hook output (the host reads stdout) and returns the exit code. */
export function emitHookOutput(output: HookOutput): number {
  if (output.stdout) writeAll(1, `${output.stdout}\n`);
  if (output.stderr) writeAll(2, `${output.stderr}\n`);
  return output.exitCode;
}

/**
 * A hook that failed before it could format an answer. PreToolUse fails closed: exit 2 with the
 * reason on stderr blocks the tool in Claude-style hosts (exit 1 would let it through).
 */
export function emitHookCrash(event: string, error: unknown): number {
  const message = error instanceof Error ? error.message : String(error);
  if (event === 'pre-tool-use') {
    writeAll(
      2,
      `firstlight gate: could not check this tool call (${message}); call bootstrap_session() first, then retry.\n`,
    );
    return 2;
  }
  writeAll(2, `firstlight hook ${event}: ${message}\n`);
  return 0;
}
