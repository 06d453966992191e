/**
 * The only code in src/host that writes to stdout or stderr or picks a hook's exit code. Each
 * function names its intent; handlers and adapters only return values.
 *
 * Writes go straight to the file descriptors (writeSync): process.stdout and process.stderr are
 * streams Node sets up on first use, which cost a hook more than the write.
 */
import { writeAllSync } from '../../core/index.js';
import type { HookOutput } from '../types.js';

/** Writes a formatted hook output (the host reads stdout) and returns the exit code. */
export function emitHookOutput(output: HookOutput): number {
  if (output.stdout) writeAllSync(1, `${output.stdout}\n`);
  if (output.stderr) writeAllSync(2, `${output.stderr}\n`);
  return output.exitCode;
}

/**
 * A hook that failed before it could format an answer. PreToolUse fails closed: exit 2 with the
 * reason on stderr blocks the tool in Claude-style hosts (exit 1 would let it through).
 */
export function emitHookCrash(event: string, error: unknown): number {
  const message = error instanceof Error ? error.message : String(error);
  if (event === 'pre-tool-use') {
    writeAllSync(
      2,
      `firstlight gate: could not check this tool call (${message}); call bootstrap_session() first, then retry.\n`,
    );
    return 2;
  }
  writeAllSync(2, `firstlight hook ${event}: ${message}\n`);
  return 0;
}
