// Shared bench helpers: temp homes, the built CLI over stdio, timing statistics, tables, JSON.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { initHome } from '../dist/core/index.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
/**
 * The checkout whose build is measured: this one, or BENCH_TREE (compare.mjs --bench-here runs
 * this checkout's bench against another's build; only a bench that loads the build from ROOT
 * honours it, and its result says which tree it measured).
 */
export const ROOT = process.env.BENCH_TREE ? resolve(process.env.BENCH_TREE) : join(BENCH_DIR, '..');
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');
/** The `firstlight` command as installed (package.json's bin): what a person or a script runs. */
export const BIN = join(ROOT, 'dist', 'cli', 'firstlight.cjs');

/**
 * The short mode: `--smoke` on a bench's command line (bench/run.mjs passes it on) or
 * BENCH_SMOKE=1. Every step of the bench runs, on small inputs with a handful of samples, in
 * seconds: CI runs it so a bench that can no longer run fails there. Its figures are not
 * measurements, so goals are not judged and the result goes to `<name>.smoke.json`.
 */
export const SMOKE = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1';

/** `full`, or `smoke` in the short mode. */
export const sized = (full, smoke) => (SMOKE ? smoke : full);

/** A count from the environment variable `name` when it is set, else `sized(full, smoke)`. */
export const countFrom = (name, full, smoke) => Number(process.env[name] ?? sized(full, smoke));

/** A goal was missed: the bench exits 1 when it measures; the short mode only says so. */
export function goalMissed() {
  if (SMOKE) console.log('(smoke run: goals are not judged on a handful of samples)');
  else process.exitCode = 1;
}

/** A temp copy of the example home (as `firstlight init` makes one) with `extra` generated note memories. */
export function benchHome(extra, prefix = 'firstlight-bench-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  initHome(dir, { from: join(ROOT, 'examples', 'home') });
  mkdirSync(join(dir, 'memory'), { recursive: true });
  const types = ['note', 'project', 'reference', 'feedback', 'session_digest'];
  for (let i = 0; i < extra; i++) {
    writeFileSync(
      join(dir, 'memory', `bench_${i}.md`),
      `---\nname: Bench memory ${i}\ntype: ${types[i % types.length]}\ndescription: generated memory number ${i} about topic ${i % 97}\ntags: [topic${i % 31}, bench]\n---\nThis is generated memory ${i}. It mentions service-${i % 53} and the ${i % 11} rollout.\n`,
    );
  }
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * An MCP server over stdio with a connected SDK client: the built CLI with `args`, or `command`
 * with `args`. Without `env` the server gets the SDK's default environment; with it, the whole
 * environment plus `env`.
 */
export async function connect(args, { command, env } = {}) {
  const transport = new StdioClientTransport({
    command: command ?? process.execPath,
    args: command ? args : [CLI, ...args],
    ...(env ? { env: { ...process.env, ...env } } : {}),
    stderr: 'ignore',
  });
  const client = new Client({ name: 'firstlight-bench', version: '0' });
  await client.connect(transport);
  return client;
}

/** Runs `fn` `n` times after `warm` warm-ups; returns per-call milliseconds. */
export async function timeCalls(fn, n, warm = sized(20, 2)) {
  for (let i = 0; i < warm; i++) await fn();
  const out = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return out;
}

/** Count, median (the upper one of an even count), p95, mean and max of `ms`. */
export function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return {
    n: s.length,
    median: q(0.5),
    p95: q(0.95),
    mean: s.reduce((a, b) => a + b, 0) / s.length,
    max: s[s.length - 1],
  };
}

export function printTable(title, rows) {
  const cols = Object.keys(rows[0]);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells) => cells.map((c, i) => String(c).padEnd(widths[i])).join('  ');
  console.log(`\n${title}`);
  console.log(line(cols));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(cols.map((c) => r[c])));
}

/**
 * Writes bench/results/<name>.json of this checkout (<name>.smoke.json in the short mode); its
 * README.md says how to read them. A bench that honours BENCH_TREE puts `tree: ROOT` in `data`.
 */
export function writeResult(name, data) {
  const dir = join(BENCH_DIR, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, SMOKE ? `${name}.smoke.json` : `${name}.json`);
  const head = {
    bench: name,
    at: new Date().toISOString(),
    node: process.version,
    ...(SMOKE ? { smoke: true } : {}),
  };
  writeFileSync(file, `${JSON.stringify({ ...head, ...data }, null, 2)}\n`);
  console.log(`\nwrote ${file}`);
}

/** A number to 3 decimals; a missing value as a dash; anything else as it is. */
export const fmt = (x) =>
  x === null || x === undefined ? '  -  ' : typeof x === 'number' ? x.toFixed(3) : x;

/**
 * The hand-built request the runtime benches give a substrate directly ("bespoke wiring"), the
 * peer of the same validator session through `invoke()`.
 */
export const bespokeRequest = () => ({
  sessionId: 'bespoke',
  systemPrompt: 'You validate.',
  messages: [{ role: 'user', content: 'Validate the cache against its claims.' }],
  tools: [],
  removedTools: [],
  mcpServers: {},
  executeTool: async () => ({ output: '', isError: true }),
  budget: { maxTurns: 20 },
  signal: new AbortController().signal,
  onEvent: () => {},
});

/**
 * A validator's place for the runtime benches: a home, a project, and a plan to build from.
 * `build(runtime)` runs a scripted builder session in the project and returns its artifact
 * handoff's id: a validator's artifact must trace to a builder's transition in the ledger.
 * `dispose()` removes the home and the project.
 */
export function validatorPlace(tag) {
  const home = benchHome(0, `firstlight-bench-${tag}-`);
  const project = mkdtempSync(join(tmpdir(), `firstlight-bench-${tag}-project-`));
  const plan = join(project, 'plan.json');
  writeFileSync(
    plan,
    JSON.stringify({
      kind: 'plan',
      content: {
        assumptions: ['reads dominate'],
        scope: { in: ['GET /items'], out: ['writes'] },
        deferred: ['eviction'],
        would_invalidate: ['writes over 30%'],
      },
    }),
  );
  const artifact = {
    handoff: {
      artifact: 'src/cache.ts',
      claims: { does: ['caches reads'], does_not: ['invalidate'], scope: 'the plan' },
    },
  };
  return {
    home,
    project,
    async build(runtime) {
      const { ScriptedSubstrate } = await import('../dist/runtime/index.js');
      const result = await runtime.invoke({
        persona: 'builder',
        role: 'builder',
        surface: 'code-output',
        engagement: 'agent',
        task: 'Build the cache.',
        handoffs: [plan],
        substrate: new ScriptedSubstrate({ steps: [{ text: 'Built.', output: artifact }] }),
      });
      if (!result.meta.handoff_id)
        throw new Error(`the bench's builder failed: ${JSON.stringify(result.meta)}`);
      return result.meta.handoff_id;
    },
    dispose: () => {
      home.dispose();
      rmSync(project, { recursive: true, force: true });
    },
  };
}

/**
 * `firstlight runtime serve` on a free port for `home` and `project`, with `args`; resolves with
 * its URL (once it prints it), the `auth` header its token needs, and a stop.
 */
export async function serveRuntime(home, project, args = []) {
  const child = spawn(
    process.execPath,
    [CLI, 'runtime', 'serve', '--home', home, '--project', project, '--port', '0', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const url = await new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const match = /HTTP API: (\S+)\/v1/.exec(output);
      if (match && output.includes('Ctrl-C to stop.')) resolve(match[1]);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`runtime serve exited ${code}: ${output}`)));
  });
  // The token it generated at start (a build before tokens prints none).
  const token = /^ {2}Token: (\S+)$/m.exec(output)?.[1];
  return {
    url,
    auth: token ? { authorization: `Bearer ${token}` } : {},
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}
