/**
 * The runtime service under test: `firstlight runtime serve` started as a process on a free
 * port over a runtime fixture's home and project, the CLI run asynchronously beside it (never
 * spawnSync in a worker), and results normalised for comparing one door with another.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { InvokeResult } from '../../src/runtime/index.js';
import { CLI } from '../helpers/index.js';

export interface RunningService {
  /** The base URL, `http://127.0.0.1:PORT`. */
  readonly url: string;
  /** The token every request sends: the one it printed (generated at start), or FIRSTLIGHT_TOKEN; none with --no-token. */
  readonly token: string | undefined;
  /** `{authorization: Bearer …}` for a raw request (empty without a token). */
  readonly auth: Readonly<Record<string, string>>;
  readonly pid: number;
  readonly child: ChildProcess;
  output(): string;
  /** Sends `signal` and waits for the exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `firstlight runtime serve --port 0 …args` and waits for the URL (and the token) it prints. */
export async function startService(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<RunningService> {
  const child = spawn(process.execPath, [CLI, 'runtime', 'serve', '--port', '0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`runtime serve did not start: ${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      // The banner's last line: the token line before it is in.
      const match = /HTTP API: (\S+)\/v1/.exec(output);
      if (match && output.includes('Ctrl-C to stop.')) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`runtime serve exited ${code}: ${output}`));
    });
  });
  const token = /^ {2}Token: (\S+)$/m.exec(output)?.[1] ?? (env.FIRSTLIGHT_TOKEN || undefined);
  return {
    url,
    token,
    auth: token ? { authorization: `Bearer ${token}` } : {},
    pid: child.pid!,
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

export interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI to completion without blocking the worker. */
export function runCliAsync(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/**
 * A result with what differs between two runs of the same invocation masked: session, handoff
 * and invocation ids, times, timings, journal references.
 */
export function normalized(result: InvokeResult): unknown {
  const text = JSON.stringify(result)
    .replace(/\bs-[a-z0-9]+-[0-9a-f]{6}\b/g, 'SESSION')
    .replace(/\b(synthesis|plan|artifact|findings|revision)-[0-9a-f]{8}\b/g, '$1-ID')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, 'TIME')
    .replace(/\d{4}-\d{2}-\d{2}\.tsv/g, 'DAY.tsv');
  const value = JSON.parse(text) as { meta: Record<string, unknown> };
  delete value.meta.timings;
  return value;
}

/** The process's peak resident set (VmHWM) and current (VmRSS), in MB. */
export function memoryOf(pid: number): { peakMb: number; rssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
  return { peakMb: kb('VmHWM') / 1024, rssMb: kb('VmRSS') / 1024 };
}
