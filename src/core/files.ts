import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import lockfile from 'proper-lockfile';
import writeFileAtomic from 'write-file-atomic';
import { ensureDir } from './dirs.js';
import { SystemError } from './errors.js';

/**
 * Writes a file atomically: a temp file in the same directory, fsync, rename. A reader (or a
 * process killed mid-write) sees the old content or the new, never a torn file. `fsync: false`
 * keeps the rename's atomicity but not durability across a power loss: for records written on
 * a latency budget (the runtime's session state, as durable as its journal lines).
 */
export async function writeFileAtomically(
  path: string,
  content: string | Buffer,
  options: { fsync?: boolean; mode?: number } = {},
): Promise<void> {
  ensureDir(dirname(path));
  await writeFileAtomic(path, content, atomicOptions(options));
}

/**
 * Synchronous twin of {@link writeFileAtomically}, for hooks that must not start an event loop
 * and for small records on a latency budget (no thread-pool round trips).
 */
export function writeFileAtomicallySync(
  path: string,
  content: string | Buffer,
  options: { fsync?: boolean; mode?: number } = {},
): void {
  ensureDir(dirname(path));
  writeFileAtomic.sync(path, content, atomicOptions(options));
}

/** `mode`: the file's permissions from its first byte (the temp file is made with them). */
function atomicOptions(options: { fsync?: boolean; mode?: number }) {
  return { fsync: options.fsync ?? true, ...(options.mode !== undefined ? { mode: options.mode } : {}) };
}

export interface LockOptions {
  /** Give up after this long waiting for another process (ms). Default 30 s. */
  waitMs?: number;
  /** A lock older than this is considered abandoned by a dead process (ms). Default 10 s. */
  staleMs?: number;
}

/**
 * Runs `work` while holding a cross-process lock on `target` (a `target.lock` directory; the
 * target itself need not exist). Read-modify-write cycles on shared files go through here:
 * several hosts run several servers on one home. Waiting is proper-lockfile's own retry policy
 * (short randomized backoff, 2 to 50 ms, for up to `waitMs`); there is no second loop around it.
 */
export async function withFileLock<T>(
  target: string,
  work: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const waitMs = options.waitMs ?? 30_000;
  ensureDir(dirname(target));
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(target, {
      realpath: false,
      stale: options.staleMs ?? 10_000,
      // 20 backoff steps (2 ms growing to 50 ms), repeated until waitMs has passed; retry reads
      // a maxRetryTime of 0 as "no limit".
      retries: {
        retries: 20,
        forever: true,
        maxRetryTime: Math.max(1, waitMs),
        minTimeout: 2,
        maxTimeout: 50,
        factor: 1.4,
        randomize: true,
      },
    });
  } catch (error) {
    throw new SystemError(`could not lock ${target}: ${(error as Error).message}`, {
      code: 'LOCK_TIMEOUT',
      hint: `another firstlight process holds ${target}.lock; if none is running, delete that directory`,
      cause: error,
    });
  }
  try {
    return await work();
  } finally {
    await release().catch(() => {
      // The lock may have been judged stale and taken over; nothing of ours to release.
    });
  }
}

/** Reads a UTF-8 file, or undefined when it does not exist. Other errors propagate. */
export function readTextIfExists(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** mtime in ms, or undefined when the path does not exist. */
export function mtimeMs(path: string): number | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false })?.mtimeMs;
  } catch {
    return undefined;
  }
}
