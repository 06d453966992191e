/**
 * Test wiring: temp homes, the built CLI, and real MCP clients over stdio and HTTP. Every
 * e2e test drives `dist/cli/main.js` (run `npm run build` first; `npm test` does).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHome, initHome } from '../../src/core/index.js';
import { codexHookHash } from '../../src/host/adapters/codex-trust.js';
import { type Ran, run } from './run.js';

export { type Ran, type RunOptions, run } from './run.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * The built CLI under test; `FIRSTLIGHT_CLI` points the suites that use it at another build
 * (e.g. an older checkout's, to see a regression test fail there first).
 */
export const CLI = process.env.FIRSTLIGHT_CLI ?? join(REPO_ROOT, 'dist', 'cli', 'main.js');
export const EXAMPLE_HOME = join(REPO_ROOT, 'examples', 'home');

/**
 * The MCP Inspector CLI, run the way a user would: `npx -y -p @modelcontextprotocol/inspector@1.0.3
 * mcp-inspector --cli …` (1.0.3 runs on Node 20; it is not a devDependency because its package
 * declares Node >= 22.7.5, and `npm ci` would warn EBADENGINE). npx fetches it once into its cache.
 */
export function runInspector(args: string[], options: { timeoutMs?: number } = {}): Promise<Ran> {
  return run(
    'npx',
    ['-y', '-p', '@modelcontextprotocol/inspector@1.0.3', 'mcp-inspector', '--cli', ...args],
    {
      timeoutMs: options.timeoutMs ?? 120_000,
      // npx with a working directory outside the repo, so no local package shadows the pinned one.
      cwd: tmpdir(),
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_loglevel: 'error' },
    },
  );
}

/** A fresh temp directory, removed by `dispose()`. */
export function tempDir(prefix = 'firstlight-test-'): { dir: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A temp copy of the example home (tests never write into the repo's example), made the way
 * `firstlight init` makes a home: only the template's entries, none of the state `npm start`
 * collects in the example.
 */
export function exampleHomeCopy(): { dir: string; dispose: () => void } {
  const t = tempDir('firstlight-home-');
  initHome(t.dir, { from: EXAMPLE_HOME });
  return t;
}

/**
 * A temp home made the way `firstlight init` makes one (a short persona, an empty memory):
 * commands and hooks refuse a home that does not exist, so a test that needs a blank one uses this.
 */
export function tempHome(prefix = 'firstlight-home-'): { dir: string; dispose: () => void } {
  const t = tempDir(prefix);
  createHome(t.dir, { name: 'Tester', user: '', style: '' });
  return t;
}

/** Runs the built CLI to completion (asynchronously: see run.ts). */
export function runCli(
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<Ran> {
  return run(process.execPath, [CLI, ...args], {
    input: options.input ?? '',
    env: { ...process.env, ...options.env },
    cwd: options.cwd ?? REPO_ROOT,
    timeoutMs: options.timeoutMs ?? 30_000,
  });
}

/**
 * Runs the built CLI to completion without blocking the worker (a command that starts a server or
 * a kernel takes seconds; spawnSync would hold the vitest worker's RPC meanwhile).
 */
export function runCliAsync(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...options.env },
      cwd: options.cwd ?? REPO_ROOT,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

export interface Wired {
  client: Client;
  /** The server process's pid (over stdio). */
  pid?: number;
  close: () => Promise<void>;
  stderr: () => string;
  [Symbol.asyncDispose]: () => Promise<void>;
}

/** The built CLI (or `cli`, another build) as an MCP server over stdio, connected to a real SDK Client. */
export async function wireStdio(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; cli?: string; clientName?: string } = {},
): Promise<Wired> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [options.cli ?? CLI, ...args],
    env: { ...(process.env as Record<string, string>), ...options.env },
    cwd: options.cwd ?? REPO_ROOT,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: options.clientName ?? 'firstlight-test', version: '0.0.0' });
  await client.connect(transport);
  const close = async () => {
    await client.close().catch(() => {});
  };
  return { client, pid: transport.pid as number, close, stderr: () => stderr, [Symbol.asyncDispose]: close };
}

/** A real SDK Client over streamable HTTP. */
export async function wireHttp(url: string, headers: Record<string, string> = {}): Promise<Wired> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: 'firstlight-test', version: '0.0.0' });
  await client.connect(transport);
  const close = async () => {
    await client.close().catch(() => {});
  };
  return { client, close, stderr: () => '', [Symbol.asyncDispose]: close };
}

/** Starts `firstlight serve --http` on a free port and waits for its URL. */
export async function startHttpServer(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ url: string; stop: () => Promise<void>; output: () => string }> {
  const child = spawn(process.execPath, [CLI, 'serve', '--http', '--port', '0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 15_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /MCP endpoint: (\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${output}`)));
  });
  return {
    url,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Polls `condition` until it returns something truthy and returns that; fails after `timeoutMs`
 * saying what did not happen. Tests wait on the real condition this way, never on a fixed sleep:
 * a loaded machine only makes them slower, not wrong.
 */
export async function waitFor<T>(
  what: string,
  condition: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    const value = await condition();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 20));
  }
}

/**
 * Time to beat for a step that should be about as quick as `baselineMs` (a comparable step
 * timed in the same test): `factor` times the baseline, never under `floorMs`. A loaded machine
 * slows the baseline too, so the ceiling moves with it instead of failing on a fixed number.
 */
export function ceilingFrom(baselineMs: number, options: { factor?: number; floorMs?: number } = {}): number {
  return Math.max(options.floorMs ?? 0, baselineMs * (options.factor ?? 10));
}

/** The structured packet of a tool result (falls back to parsing the JSON text). */
export function structured<T = Record<string, unknown>>(result: unknown): T {
  const r = result as { structuredContent?: T; content?: { type: string; text?: string }[] };
  if (r.structuredContent) return r.structuredContent;
  const text = r.content?.find((c) => c.type === 'text')?.text ?? 'null';
  return JSON.parse(text) as T;
}

/** The first text content of a tool result. */
export function textOf(result: unknown): string {
  const r = result as { content?: { type: string; text?: string }[] };
  return r.content?.find((c) => c.type === 'text')?.text ?? '';
}

/**
 * What a user does once in Codex CLI's "trust this project?" prompt and its /hooks screen: the
 * records Codex then keeps in the user config.toml (`$userHome/.codex`). Our hash is checked
 * against one Codex itself wrote in test/unit/host/codex-trust.test.ts.
 */
export function trustCodexHooks(project: string, userHome: string): void {
  const hooksPath = join(project, '.codex', 'hooks.json');
  const hooks = JSON.parse(readFileSync(hooksPath, 'utf8')).hooks as Record<
    string,
    { matcher?: string; hooks: Record<string, unknown>[] }[]
  >;
  const records = Object.entries(hooks).flatMap(([event, groups]) =>
    groups.map((group, g) => {
      const snake = event.replace(/(?<!^)([A-Z])/g, '_$1').toLowerCase();
      const hash = codexHookHash(event, group.matcher, group.hooks[0]!);
      return `[hooks.state."${hooksPath}:${snake}:${g}:0"]\ntrusted_hash = "${hash}"\n`;
    }),
  );
  const config = join(userHome, '.codex', 'config.toml');
  mkdirSync(dirname(config), { recursive: true });
  writeFileSync(config, `[projects."${project}"]\ntrust_level = "trusted"\n\n${records.join('\n')}`);
}

/** What a user's first interactive Copilot CLI run records when they trust the folder (~/.copilot/config.json). */
export function trustCopilotFolder(project: string, userHome: string): void {
  const config = join(userHome, '.copilot', 'config.json');
  mkdirSync(dirname(config), { recursive: true });
  writeFileSync(config, `${JSON.stringify({ trusted_folders: [project] }, null, 2)}\n`);
}

/** Every file under `dir` with its text (directories too, as `name/`, so leftovers show). */
export function treeOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) {
        out[`${relative(dir, p)}/`] = '';
        walk(p);
      } else out[relative(dir, p)] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

/** Writes `text` to `rel` under `root`, making its folders. */
export function put(root: string, rel: string, text: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
}

/**
 * A PATH on which every host's program is present (`claude`, `codex`, …: stubs that exit 1), as
 * on a machine with the hosts installed: doctor checks present hosts and skips absent ones. The
 * stubs live in `dir`/bin; the rest of PATH follows, so node and the system tools still resolve.
 */
export function pathWithHostPrograms(dir: string): string {
  const bin = join(dir, 'host-bin');
  mkdirSync(bin, { recursive: true });
  for (const name of ['claude', 'codex', 'copilot', 'gemini', 'code', 'cursor']) {
    writeFileSync(join(bin, name), '#!/bin/sh\necho "stub host program for tests" >&2\nexit 1\n', {
      mode: 0o755,
    });
  }
  return `${bin}:${process.env.PATH ?? ''}`;
}
