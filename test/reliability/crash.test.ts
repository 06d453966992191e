/**
 * kill -9 at known points: in the middle of an atomic write, while holding a lock, while a cell
 * runs a subprocess; and stdin closing under the REPL. What a crash leaves is swept by the next
 * start and said once; nothing a killed process started outlives it; concurrent writers lose
 * nothing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleHomeCopy, REPO_ROOT, tempDir, waitFor } from '../helpers/index.js';
import { childrenOf, cli, figure, rawServer, structuredOf, waitGone, wire } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
function home(): string {
  const h = exampleHomeCopy();
  cleanups.push(h.dispose);
  return h.dir;
}

/** A node process running `code` (CommonJS, with the repo's node_modules). */
function node(code: string): ChildProcess {
  const child = spawn(process.execPath, ['-e', code], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cleanups.push(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return child;
}

const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

/** Ages a leftover past the sweep's threshold (30 s): the minute a real crash leaves before the next start. */
function age(path: string): void {
  const past = new Date(Date.now() - 120_000);
  utimesSync(path, past, past);
}

/** kill -9 a process inside write-file-atomic's write: after its temp file is made, before the rename. */
async function killMidWrite(dir: string): Promise<string> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const writer = node(
      `require('write-file-atomic').sync(${JSON.stringify(join(dir, 'big.md'))}, Buffer.alloc(256 * 1024 * 1024, 97), { fsync: true })`,
    );
    const temp = await waitFor(
      'the temp file',
      () => readdirSync(dir).find((f) => /^big\.md\.\d+$/.test(f)),
      {
        timeoutMs: 20_000,
        intervalMs: 2,
      },
    ).catch(() => undefined);
    await killed(writer);
    if (temp && existsSync(join(dir, temp)) && !existsSync(join(dir, 'big.md'))) return join(dir, temp);
  }
  throw new Error('could not kill a writer mid-write in 5 tries');
}

/** kill -9 a process holding a proper-lockfile lock on `target`. */
async function killHoldingLock(target: string): Promise<string> {
  const holder = node(
    `require('proper-lockfile').lock(${JSON.stringify(target)}, { realpath: false }).then(() => { console.log('locked'); setInterval(() => {}, 1000); })`,
  );
  await new Promise<void>((resolve) => holder.stdout?.once('data', () => resolve()));
  await killed(holder);
  return `${target}.lock`;
}

describe('kill -9 at known points', () => {
  it('a start after kill -9 mid-write sweeps the temp file and the stale lock, and says so once', async ({
    task,
  }) => {
    const h = home();
    const temp = await killMidWrite(join(h, 'memory'));
    const lock = await killHoldingLock(join(h, 'self-state.json'));
    age(temp);
    age(lock);
    const w = await wire(['serve', '--home', h]);
    cleanups.push(w.close);
    await waitFor('the sweep on stderr', () => /removed 2 leftovers/.test(w.stderr()));
    expect(existsSync(temp)).toBe(false);
    expect(existsSync(lock)).toBe(false);
    const reasons = async () =>
      structuredOf<{ degraded_mode: { reasons: string[] } }>(
        await w.client.callTool({ name: 'bootstrap_session', arguments: {} }),
      ).degraded_mode.reasons.join('\n');
    const first = await reasons();
    expect(first).toMatch(/a crash interrupted a write earlier: removed 2 leftovers/);
    expect(first).toContain('stale lock');
    expect(await reasons()).not.toMatch(/crash interrupted/);
    expect(w.stderr().match(/removed 2 leftovers/g)).toHaveLength(1);
    figure(task, 'swept', 2);
  });

  it('doctor sweeps and reports what a crash left', async () => {
    const h = home();
    const temp = await killMidWrite(join(h, 'memory'));
    age(temp);
    const project = tempDir('firstlight-r-doctor-');
    cleanups.push(project.dispose);
    const out = await cli(['doctor', '--project', project.dir, '--home', h]);
    expect(out.stdout).toMatch(/removed 1 leftover: memory\/big\.md\.\d+ \(temp file\)/);
    expect(existsSync(temp)).toBe(false);
  });

  it('a fresh temp file (a live writer may own it) is left alone', async () => {
    const h = home();
    const temp = await killMidWrite(join(h, 'memory'));
    const w = await wire(['serve', '--home', h]);
    cleanups.push(w.close);
    await w.client.callTool({ name: 'bootstrap_session', arguments: {} });
    expect(existsSync(temp)).toBe(true);
  });

  it("kill -9 of the REPL harness takes its kernel and the cell's subprocesses along", async ({ task }) => {
    const w = await wire(['repl', 'serve', '--home', home()]);
    cleanups.push(w.close);
    const started = structuredOf<{ return_value: number[] }>(
      await w.client.callTool({
        name: 'execute',
        arguments: {
          code: "import os, subprocess\nbg = subprocess.Popen(['sleep', '1000'])\n[os.getpid(), bg.pid]",
        },
      }),
    ).return_value;
    // A second sleep inside a running cell, as the harness dies.
    void w.client
      .callTool({ name: 'execute', arguments: { code: "subprocess.run(['sleep', '1001'])" } })
      .catch(() => {});
    const [kernel, background] = started as [number, number];
    const running = await waitFor("the cell's subprocess", () =>
      childrenOf(kernel).find((pid) => pid !== background),
    );
    const killedAt = Date.now();
    process.kill(w.pid, 'SIGKILL');
    const left = await waitGone([kernel, background, running], 5_000);
    figure(task, 'kernel group gone ms', Date.now() - killedAt);
    expect(left).toEqual([]);
  });

  it('after stdin closes, the REPL harness and its kernel exit', async ({ task }) => {
    const s = rawServer(['repl', 'serve', '--home', home()]);
    cleanups.push(() => s.kill());
    s.initialize();
    expect(await s.answer(0, 20_000)).toBeDefined();
    s.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'execute',
        arguments: {
          code: "import os, subprocess\nbg = subprocess.Popen(['sleep', '1000'])\n[os.getpid(), bg.pid]",
        },
      },
    });
    const answer = await s.answer(1, 20_000);
    const [kernel, background] = answer.result.structuredContent.return_value as [number, number];
    const closedAt = Date.now();
    s.child.stdin?.end();
    const left = await waitGone([s.child.pid as number, kernel, background], 10_000);
    figure(task, 'exit after stdin close ms', Date.now() - closedAt);
    expect(left).toEqual([]);
  });

  it('after an oversized request and then stdin closing, the REPL harness and its kernel exit', async ({
    task,
  }) => {
    const s = rawServer(['repl', 'serve', '--home', home()]);
    cleanups.push(() => s.kill());
    s.initialize();
    expect(await s.answer(0, 20_000)).toBeDefined();
    s.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'execute', arguments: { code: 'import os; os.getpid()' } },
    });
    const kernel = (await s.answer(1, 20_000)).result.structuredContent.return_value as number;
    await s.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'execute', arguments: { code: 'x'.repeat(11 * 1024 * 1024) } } })}\n`,
    );
    await s.answer(2, 5_000);
    const closedAt = Date.now();
    s.child.stdin?.end();
    const left = await waitGone([s.child.pid as number, kernel], 10_000);
    figure(task, 'exit after oversize + stdin close ms', Date.now() - closedAt);
    expect(left).toEqual([]);
  });

  it('concurrent writers: 4 processes x 3 remember each lose nothing', async ({ task }) => {
    const h = home();
    const before = readdirSync(join(h, 'memory')).length;
    const writer = (n: number) =>
      new Promise<number>((resolve) => {
        const script = Array.from(
          { length: 3 },
          (_, i) =>
            `echo "Concurrent note ${n}-${i}: unique text ${n * 10 + i}." | node ${JSON.stringify(process.env.FIRSTLIGHT_CLI ?? join(REPO_ROOT, 'dist', 'cli', 'main.js'))} remember --type note --name "r-${n}-${i}" --home ${JSON.stringify(h)} >/dev/null`,
        ).join(' && ');
        spawn('sh', ['-c', script], { stdio: 'ignore' }).on('exit', (code) => resolve(code ?? 1));
      });
    const started = Date.now();
    const codes = await Promise.all([0, 1, 2, 3].map(writer));
    figure(task, '12 remembers ms', Date.now() - started);
    expect(codes).toEqual([0, 0, 0, 0]);
    const files = readdirSync(join(h, 'memory'));
    expect(files.length - before).toBeGreaterThanOrEqual(12);
    const index = (await import('node:fs')).readFileSync(join(h, 'memory', 'MEMORY.md'), 'utf8');
    for (let n = 0; n < 4; n++) for (let i = 0; i < 3; i++) expect(index).toContain(`r-${n}-${i}`);
  });
});
