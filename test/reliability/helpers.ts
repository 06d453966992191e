/**
 * The R-suite's helpers: the CLI under test (`FIRSTLIGHT_CLI` points the suite at another
 * build, e.g. an older commit's, to see a probe fail there), raw stdio JSON-RPC for probes that
 * must write what no SDK client would, process checks through /proc, and figures for the table.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { RunnerTestCase } from 'vitest';
import { CLI, REPO_ROOT, run, wireStdio } from '../helpers/index.js';

export const CLI_UNDER_TEST = process.env.FIRSTLIGHT_CLI ?? CLI;

declare module 'vitest' {
  interface TaskMeta {
    /** Numbers a probe measured, printed in the suite's table. */
    figures?: Record<string, string | number>;
  }
}

/** Records a figure (a time, a size, a count) for the summary table. */
export function figure(task: RunnerTestCase, name: string, value: string | number): void {
  task.meta.figures = { ...(task.meta.figures ?? {}), [name]: value };
}

export async function cli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string; timeoutMs?: number } = {},
) {
  const started = Date.now();
  const result = await run(process.execPath, [CLI_UNDER_TEST, ...args], {
    input: options.input ?? '',
    env: { ...process.env, ...options.env },
    cwd: options.cwd ?? REPO_ROOT,
    timeoutMs: options.timeoutMs ?? 30_000,
    killSignal: 'SIGKILL',
  });
  return { ...result, ms: Date.now() - started };
}

/** A real SDK client over stdio to the CLI under test, with the server's pid and stderr. */
export async function wire(args: string[], options: { env?: Record<string, string>; cwd?: string } = {}) {
  const wired = await wireStdio(args, {
    ...options,
    cli: CLI_UNDER_TEST,
    clientName: 'firstlight-reliability',
  });
  return { ...wired, pid: wired.pid as number };
}

/** A server under test driven line by line: write anything, read its JSON-RPC answers by id. */
export function rawServer(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  const child: ChildProcess = spawn(process.execPath, [CLI_UNDER_TEST, ...args], {
    env: { ...process.env, ...options.env },
    cwd: options.cwd ?? REPO_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // biome-ignore lint/suspicious/noExplicitAny: raw protocol messages
  const answers: any[] = [];
  let buffered = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      try {
        answers.push(JSON.parse(line));
      } catch {
        answers.push({ unparsed: line });
      }
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  child.stdin?.on('error', () => {});
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    answers,
    stderr: () => stderr,
    exited,
    send: (message: unknown) => child.stdin?.write(`${JSON.stringify(message)}\n`),
    write: (bytes: string | Buffer) =>
      new Promise<void>((resolve) => {
        if (child.stdin?.write(bytes)) resolve();
        else child.stdin?.once('drain', () => resolve());
      }),
    /** The answer with this id, within `ms` (undefined when none came). */
    answer: async (id: number | string | null, ms = 10_000) => {
      const until = Date.now() + ms;
      for (;;) {
        const found = answers.find((a) => a.id === id);
        if (found || Date.now() > until || child.exitCode !== null) return found;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    initialize: () =>
      child.stdin?.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'r', version: '0' } } })}\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
      ),
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

// /proc process checks and MCP result readers are the e2e suites' own.
export { childrenOf, gone, waitGone } from '../e2e/repl-procs.js';
export { structured as structuredOf, textOf } from '../helpers/index.js';
