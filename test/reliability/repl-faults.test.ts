/**
 * REPL faults: a loop, huge output, a killed kernel, a backend that crashes, a backend that
 * never answers. Each ends with a named error and the next `execute` answering quickly.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleHomeCopy, REPO_ROOT } from '../helpers/index.js';
import { figure, structuredOf, wire } from './helpers.js';

interface Exec {
  success: boolean;
  stdout: string;
  stderr: string;
  return_value: unknown;
  error_type: string | null;
  error_message: string | null;
}

const FAULTY = join(REPO_ROOT, 'test', 'reliability', 'fixtures', 'faulty-server.mjs');

let home: { dir: string; dispose: () => void };
let w: Awaited<ReturnType<typeof wire>>;
beforeAll(async () => {
  home = exampleHomeCopy();
  w = await wire(['repl', 'serve', '--home', home.dir]);
});
afterAll(async () => {
  await w.close();
  home.dispose();
});

async function run(code: string, timeout?: number): Promise<Exec & { ms: number }> {
  const started = Date.now();
  const result = await w.client.callTool(
    { name: 'execute', arguments: timeout ? { code, timeout } : { code } },
    undefined,
    { timeout: 120_000 },
  );
  return { ...structuredOf<Exec>(result), ms: Date.now() - started };
}

describe('REPL faults', () => {
  it('an endless loop is interrupted at its timeout; the next execute answers at once', async ({ task }) => {
    const loop = await run('while True: pass', 2);
    expect(loop.error_type).toBe('TimeoutError');
    const next = await run('1 + 1');
    figure(task, 'next after loop ms', next.ms);
    expect(next.return_value).toBe(2);
  });

  it('50 MB of output is capped, the harness stays responsive', async ({ task }) => {
    const out = await run("print('x' * 50_000_000)");
    figure(task, '50 MB print ms', out.ms);
    expect(out.stdout.length).toBeLessThan(100_000);
    expect((await run('2 + 2')).return_value).toBe(4);
  });

  it('a kernel killed by its own cell is reported and replaced', async () => {
    const died = await run('import os, signal; os.kill(os.getpid(), signal.SIGKILL)');
    expect(died.error_type).toBe('KernelDied');
    expect((await run('3 + 3')).return_value).toBe(6);
  });

  it('a crashed backend is reported as crashed (exit code, last stderr lines), restarted on next use, and counted', async ({
    task,
  }) => {
    const installed = await w.client.callTool({
      name: 'install_capability',
      arguments: { name: 'faulty', command: process.execPath, args: [FAULTY] },
    });
    expect(installed.isError, JSON.stringify(installed)).toBeFalsy();
    const first = await run("faulty.echo(text='a')");
    expect(first.success, first.error_message ?? '').toBe(true);
    const crash = await run('faulty.crash()');
    expect(crash.error_type).toBe('CapabilityError');
    expect(crash.error_message).toMatch(/BACKEND_CRASHED: backend "faulty" crashed \(exit code 3\)/);
    expect(crash.error_message).toMatch(/disk on fire/);
    const crashed = structuredOf<{
      backend: { state: string; restarts: number; last_crash?: { how: string } };
    }>(await w.client.callTool({ name: 'describe_capability', arguments: { name: 'faulty' } }));
    expect(crashed.backend).toMatchObject({
      state: 'crashed',
      restarts: 0,
      last_crash: { how: 'exit code 3' },
    });
    const started = Date.now();
    const again = await run("faulty.echo(text='b')");
    figure(task, 'restart + call ms', Date.now() - started);
    expect(again.success, again.error_message ?? '').toBe(true);
    expect(String(again.return_value)).toMatch(/:b$/);
    const described = await w.client.callTool({ name: 'describe_capability', arguments: { name: 'faulty' } });
    expect(structuredOf<{ backend: unknown }>(described).backend).toMatchObject({
      state: 'running',
      restarts: 1,
    });
  });

  it('a hung backend times out with a named error and the next execute answers within 5 s', async ({
    task,
  }) => {
    await w.client.callTool({
      name: 'install_capability',
      arguments: { name: 'stuck', command: process.execPath, args: [FAULTY] },
    });
    const hung = await run('stuck.hang()', 3);
    expect(hung.error_type).toBe('TimeoutError');
    expect(hung.error_message).toMatch(
      /while calling stuck\.hang, which had not answered \(BACKEND_TIMEOUT\)/,
    );
    const started = Date.now();
    const next = await run('5 + 5');
    const ms = Date.now() - started;
    figure(task, 'next after hang ms', ms);
    expect(next.return_value).toBe(10);
    expect(ms).toBeLessThan(5_000);
    // The backend's other tools still answer.
    expect((await run("stuck.echo(text='c')")).success).toBe(true);
  });
});
