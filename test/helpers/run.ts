/**
 * Running a process to completion without blocking the test worker. A vitest worker answers
 * its runner over RPC from its event loop; `spawnSync` stops that loop for as long as the child
 * runs, and a test making many such calls on a loaded machine starves the RPC past its
 * 60-second timeout: every test passes and the run still fails. So tests spawn asynchronously,
 * with the same result shape `spawnSync` gives (Biome's noRestrictedImports keeps it so).
 */
import { spawn } from 'node:child_process';

export interface Ran {
  /** The exit code; null when a signal ended the process. */
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Set when the process could not start, or was killed at its timeout (code ETIMEDOUT). */
  error?: NodeJS.ErrnoException;
}

export interface RunOptions {
  /** Written to stdin, which is then closed (closed at once when absent). */
  input?: string;
  /** The whole environment of the child (the caller merges in process.env when it wants it). */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Kill the child (with `killSignal`) after this long; the result then carries ETIMEDOUT. */
  timeoutMs?: number;
  killSignal?: NodeJS.Signals;
}

/** Runs `command args` to completion and resolves with its exit status and output. */
export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let error: NodeJS.ErrnoException | undefined;
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    // A child that exits without reading its input closes the pipe under us: not a failure.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            error = Object.assign(new Error(`${command} timed out after ${options.timeoutMs} ms`), {
              code: 'ETIMEDOUT',
            });
            child.kill(options.killSignal ?? 'SIGTERM');
          }, options.timeoutMs);
    let started = false;
    child.on('spawn', () => {
      started = true;
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e;
    });
    // 'close', not 'exit': the output streams are drained by then.
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({
        // A command that could not start has no exit status (Node reports the errno as one).
        status: started ? status : null,
        signal,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        ...(error ? { error } : {}),
      });
    });
  });
}
