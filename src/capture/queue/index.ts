/**
 * @module capture/queue — what a Stop / PreCompact hook does for capture, and nothing more: one
 * small job file per session in `<home>/capture/queue/` (written by rename, so a reader never
 * sees half of one), and a detached worker started to run it. A light face (node built-ins
 * only): the hook pays a file write and a spawn, never the extraction; `firstlight capture`
 * (capture's index) runs the queue.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** One session waiting to be captured. */
export interface CaptureJob {
  session: string;
  /** The host that ran the session (claude, codex, gemini, …). */
  host: string;
  transcript: string | null;
  /** How `transcript` is read: claude, codex or gemini (hosts that imitate Claude Code read as it). */
  format: 'claude' | 'codex' | 'gemini' | 'copilot';
  /** The session's project directory (the project's own `capture: off` is read there). */
  cwd: string | null;
  /** What queued it: stop, pre-compact, session-end, cli. */
  event: string;
  queued_at: string;
}

export const captureDir = (home: string): string => join(home, 'capture');
export const queueDir = (home: string): string => join(captureDir(home), 'queue');

/** The worker's cross-process lock (a directory proper-lockfile makes and refreshes while held). */
export const workerLockTarget = (home: string): string => join(captureDir(home), 'worker');
/** A lock not refreshed for this long is a dead worker's (its holder refreshes it every half of it). */
export const WORKER_STALE_MS = 60_000;

/**
 * Whether a worker holds the lock now: its directory exists and was refreshed within
 * {@link WORKER_STALE_MS}. One stat: Claude Code's Stop fires after every turn.
 */
export function workerRunning(home: string, now = Date.now()): boolean {
  try {
    return now - statSync(`${workerLockTarget(home)}.lock`).mtimeMs < WORKER_STALE_MS;
  } catch {
    return false;
  }
}

/** A job's file name: the session id made safe for a file name (one job per session). */
export function jobFileName(session: string): string {
  const safe = session.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 120);
  return `${safe || 'session'}.json`;
}

/**
 * Queues `job` (a later Stop of the same session replaces it: the newest transcript is the one
 * to read). Atomic: written beside the queue and renamed in.
 */
export function queueCapture(home: string, job: CaptureJob): string {
  const dir = queueDir(home);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, jobFileName(job.session));
  const temp = join(dir, `.${process.pid}.${Date.now()}.tmp`);
  writeFileSync(temp, `${JSON.stringify(job)}\n`);
  renameSync(temp, file);
  return file;
}

/** The queued job files, oldest name first (`.tmp` files being written are not jobs). */
export function queuedJobs(home: string): string[] {
  try {
    return readdirSync(queueDir(home))
      .filter((f) => f.endsWith('.json'))
      .sort();
  } catch {
    return [];
  }
}

/**
 * The command that runs the queue: `node <dist/cli/main.js> capture --worker --home HOME`. The
 * hook runs from dist/cli (hook.cjs, firstlight.cjs or main.js), so main.js sits beside its
 * entry script; null when it cannot be found (then `firstlight capture` runs the queue later).
 */
export function workerCommand(
  home: string,
  entry = process.argv[1],
): { command: string; args: string[] } | null {
  if (!entry) return null;
  const main = join(dirname(entry), 'main.js');
  if (!existsSync(main)) return null;
  return { command: process.execPath, args: [main, 'capture', '--worker', '--home', home] };
}

/** What {@link startCaptureWorker} did. */
export type WorkerStart = 'started' | 'running' | 'off' | 'unavailable';

/**
 * Starts the worker detached (its own process group, no stdio), so the hook returns at once
 * and the host never waits for capture; not when one runs already (it takes the new job before
 * it exits: it reads the queue again after letting go of its lock). `FIRSTLIGHT_CAPTURE_WORKER=off`
 * queues only (tests, and anyone who runs `firstlight capture` on a schedule).
 */
export function startCaptureWorker(
  home: string,
  env: NodeJS.ProcessEnv,
  entry: string | undefined = process.argv[1],
): WorkerStart {
  if (env.FIRSTLIGHT_CAPTURE_WORKER === 'off') return 'off';
  if (workerRunning(home)) return 'running';
  const worker = workerCommand(home, entry);
  if (!worker) return 'unavailable';
  const child = spawn(worker.command, worker.args, { detached: true, stdio: 'ignore', env });
  child.on('error', () => {
    // no worker: the job waits in the queue for the next one or `firstlight capture`
  });
  child.unref();
  return 'started';
}
