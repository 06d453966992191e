/**
 * Running an agent CLI for one session: the prompt on stdin, each stdout line handed over as
 * it arrives (the CLIs stream JSON lines), stderr kept for the failure message, the whole
 * process group killed when the session's signal aborts (a wall-time budget, a caller abort).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { type Json, obj } from './json.js';
import { type CliState, commandExists, sandboxPlan } from './sandbox.js';
import type { SubstrateSandbox, SubstrateSandboxRequest } from './types.js';

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The last few KB of stderr. */
  readonly stderr: string;
  /** Set when the executable could not be started (ENOENT: not installed). */
  readonly spawnError?: NodeJS.ErrnoException;
}

export interface CliOptions {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly stdin: string;
  readonly signal: AbortSignal;
  onLine(line: string): void;
}

const STDERR_KEEP = 8192;

export function runCli(command: string, args: readonly string[], options: CliOptions): Promise<CliRun> {
  return new Promise((resolve) => {
    if (options.signal.aborted) {
      resolve({ code: null, signal: 'SIGTERM', stderr: '' });
      return;
    }
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so an abort also ends what the CLI started (MCP servers, shells).
      detached: process.platform !== 'win32',
    });
    let stderr = '';
    let spawnError: NodeJS.ErrnoException | undefined;
    const kill = () => {
      if (child.exitCode !== null || child.pid === undefined) return;
      try {
        if (process.platform !== 'win32') process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    options.signal.addEventListener('abort', kill, { once: true });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin);
    createInterface({ input: child.stdout }).on('line', (line) => {
      options.onLine(line);
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-STDERR_KEEP);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      spawnError = error;
    });
    child.on('close', (code, signal) => {
      options.signal.removeEventListener('abort', kill);
      resolve({ code, signal, stderr, ...(spawnError ? { spawnError } : {}) });
    });
  });
}

/** A confined run: the substrate's sandbox, the request's confinement, what the CLI must write. */
export interface Confinement {
  readonly sandbox: SubstrateSandbox;
  readonly request: SubstrateSandboxRequest;
  readonly state: CliState;
}

/**
 * {@link runCli}, inside the OS sandbox when `confinement` is given. A CLI that is not
 * installed is reported as not started (ENOENT) either way, as spawn would report it.
 */
export async function runAgentCli(
  command: string,
  args: readonly string[],
  options: CliOptions,
  confinement: Confinement | undefined,
): Promise<CliRun> {
  if (!confinement) return runCli(command, args, options);
  if (!commandExists(command, options.env)) {
    const spawnError: NodeJS.ErrnoException = Object.assign(new Error(`spawn ${command} ENOENT`), {
      code: 'ENOENT',
    });
    return { code: null, signal: null, stderr: '', spawnError };
  }
  const plan = sandboxPlan(confinement.sandbox, confinement.request, {
    command,
    args,
    cwd: options.cwd,
    env: options.env,
    state: confinement.state,
  });
  try {
    const run = await runCli(plan.command, plan.args, options);
    if (!run.spawnError) return run;
    // The sandbox itself did not start (it was there when the session was admitted).
    const why = `the OS sandbox "${plan.command}" could not be started: ${run.spawnError.message}`;
    return { code: null, signal: null, stderr: why };
  } finally {
    plan.dispose();
  }
}

/** The conversation as one prompt for a CLI that takes a single message. */
export function promptText(messages: readonly { role: string; content: string }[]): string {
  if (messages.length === 1) return messages[0]!.content;
  return messages.map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${m.content}`).join('\n\n');
}

/** An `onLine` for a CLI that streams JSON lines: each object to `onEvent`; other lines are skipped. */
export function jsonLines(onEvent: (event: Json) => void): (line: string) => void {
  return (line) => {
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      return;
    }
    onEvent(obj(event));
  };
}

/** Why an agent CLI did not start: not installed (with how to install it or point at it), or the error. */
export function notStarted(
  kind: string,
  command: string,
  error: NodeJS.ErrnoException,
  install: string,
): string {
  const setting = `substrates.${kind.replace('-', '_')}.command`;
  return error.code === 'ENOENT'
    ? `${kind}: "${command}" was not found; install ${install} or set ${setting} in firstlight.yaml`
    : `${kind}: could not start "${command}": ${error.message}`;
}
