import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../src/core/index.js';
import { INDEX_FORMAT } from '../../src/mind/memory/compact.js';
import { readSavedIndex } from '../../src/mind/memory/persisted-index.js';
import {
  exampleHomeCopy,
  REPO_ROOT,
  runCli,
  structured,
  tempDir,
  textOf,
  waitFor,
  wireStdio,
} from '../helpers/index.js';

const WORKER = join(REPO_ROOT, 'bench', 'fixtures', 'recall', 'remember-worker.mjs');
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

function home(): string {
  const h = exampleHomeCopy();
  cleanup.push(h.dispose);
  return h.dir;
}

type Hits = { results: { name: string; type: string; score: number; excerpt: string }[] };

describe('memory over MCP (stdio, built CLI, real SDK client)', () => {
  it('remember -> recall finds it; a facet filters; observe flags and measures prediction error', async () => {
    const dir = home();
    const wired = await wireStdio(['serve', '--home', dir]);
    cleanup.push(wired.close);
    const { client } = wired;
    const call = async <T>(name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      return structured<T>(result);
    };

    await call('remember', {
      content: 'Bob runs the Thursday vendor sync and wants the agenda by Wednesday noon.',
      type: 'user',
      name: 'Bob vendor sync',
      tags: ['vendors'],
    });
    const found = await call<Hits>('recall', { query: 'when does Bob want the agenda' });
    expect(found.results[0]).toMatchObject({ name: 'Bob vendor sync', type: 'user' });
    expect(found.results[0]!.excerpt).toMatch(/Wednesday noon/);

    const duplicate = await client.callTool({
      name: 'remember',
      arguments: { content: 'x', type: 'user', name: 'Bob vendor sync' },
    });
    expect(duplicate.isError).toBe(true);

    const all = await call<Hits>('recall', { query: 'portal', k: 10 });
    expect(new Set(all.results.map((r) => r.type)).size).toBeGreaterThan(1);
    const digests = await call<Hits>('recall', { query: 'portal', k: 10, facet: 'type:session_digest' });
    expect(digests.results.length).toBeGreaterThan(0);
    expect(digests.results.every((r) => r.type === 'session_digest')).toBe(true);

    await call('remember', {
      content: 'Always run migrations with --dry-run first; a live run once locked the invoices table.',
      type: 'feedback',
      name: 'Dry-run migrations',
      applies_to: ['run_migration*'],
    });
    type Observed = { cautionary_flags: { name: string; reason: string }[]; prediction_error: number | null };
    const before = await call<Observed>('observe', {
      tool_name: 'run_migration_live',
      args: { target: 'billing' },
      expected: 'the migration completes and 3 tables are altered',
    });
    expect(before.cautionary_flags).toContainEqual(
      expect.objectContaining({ name: 'Dry-run migrations', reason: 'applies_to' }),
    );
    expect(before.prediction_error).toBeNull();
    const contradicted = await call<Observed>('observe', {
      tool_name: 'run_migration_live',
      args: { target: 'billing' },
      result: 'ERROR: migration failed: lock timeout on table invoices; 0 tables altered',
    });
    expect(contradicted.prediction_error).toBeGreaterThan(0.7);

    await call('observe', {
      tool_name: 'run_tests',
      args: { file: 'a.test.ts' },
      expected: 'all 12 tests pass',
    });
    const matched = await call<Observed>('observe', {
      tool_name: 'run_tests',
      args: { file: 'a.test.ts' },
      result: 'Test Files 1 passed (1)\nTests 12 passed (12)',
    });
    expect(matched.prediction_error).toBeLessThan(0.3);

    const reflected = await call<{ event_id: string }>('reflect', {
      observation: 'Alex asked for smaller PRs again',
      kind: 'user_said',
    });
    expect(reflected.event_id).toMatch(/^ev_/);
    // An unknown kind is refused before anything is recorded, naming the field and its values.
    const badKind = await client.callTool({
      name: 'reflect',
      arguments: { observation: 'x', kind: 'gossip' },
    });
    expect(badKind.isError).toBe(true);
    expect(textOf(badKind)).toMatch(/\bkind\b/);
    for (const kind of ['user_said', 'time_passed', 'ambient', 'internal'])
      expect(textOf(badKind)).toContain(kind);
    const eventFiles = readdirSync(join(dir, 'events'));
    expect(eventFiles).toHaveLength(1);
    expect(
      readFileSync(join(dir, 'events', eventFiles[0]!), 'utf8')
        .trim()
        .split('\n'),
    ).toHaveLength(5);
  });
});

describe('memory server: the saved recall index', () => {
  it('folds a long change log into a snapshot in a worker thread while serving, and saves its last changes on shutdown', async () => {
    const dir = home();
    for (let i = 0; i < 60; i++)
      writeFileSync(
        join(dir, 'memory', `bulk_${i}.md`),
        `---\nname: Bulk ${i}\ntype: note\ndescription: bulk memory ${i}\n---\nAbout widget${i}.\n`,
      );
    const wired = await wireStdio(['serve', '--home', dir]);
    await wired.client.callTool({ name: 'recall', arguments: { query: 'widget7' } });
    // Idle time appends the 60+ new memories to the log, which is then long enough to compact.
    const snapshot = join(dir, 'cache', 'recall-index.idx');
    await waitFor('the worker thread to write a snapshot', () => existsSync(snapshot));
    expect(readSavedIndex(snapshot, INDEX_FORMAT)?.lines.has('widget7')).toBe(true);
    await wired.client.callTool({
      name: 'remember',
      arguments: { content: 'Quokkas nest under the deploy bridge.', type: 'note', name: 'Quokka nest' },
    });
    await wired.client.callTool({ name: 'recall', arguments: { query: 'quokka' } });
    await wired.close();
    const log = readFileSync(join(dir, 'cache', 'recall-index.log'), 'utf8');
    expect(log).toContain('"note_quokka_nest.md"');
    expect(log).toContain('Quokkas nest under the deploy bridge.');
  });
});

describe('memory CLI', () => {
  it('remember reads stdin, refuses a duplicate with exit 2, and recall prints JSON', async () => {
    const dir = home();
    const first = await runCli(
      ['remember', '--home', dir, '--type', 'note', '--name', 'Kiwi', '--tag', 'fruit', '--json'],
      {
        input: 'The kiwi deploy key rotates monthly.',
      },
    );
    expect(first.status, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ file: 'note_kiwi.md', replaced: false });
    const again = await runCli(['remember', '--home', dir, '--type', 'note', '--name', 'Kiwi'], {
      input: 'x',
    });
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/already exists[\s\S]*--replace/);
    const replaced = await runCli(
      ['remember', '--home', dir, '--type', 'note', '--name', 'Kiwi', '--replace'],
      {
        input: 'The kiwi deploy key rotates weekly now.',
      },
    );
    expect(replaced.status, replaced.stderr).toBe(0);
    const recall = await runCli(['recall', 'how often does the kiwi key rotate', '--home', dir, '--json']);
    expect(recall.status, recall.stderr).toBe(0);
    const out = JSON.parse(recall.stdout) as Hits;
    expect(out.results[0]).toMatchObject({ name: 'Kiwi' });
    expect(out.results[0]!.excerpt).toMatch(/weekly/);
    const faceted = await runCli([
      'recall',
      'kiwi',
      '--home',
      dir,
      '--facet',
      'tag:nothing-has-this',
      '--json',
    ]);
    expect((JSON.parse(faceted.stdout) as Hits).results).toEqual([]);
    const human = await runCli(['recall', 'kiwi', '--home', dir]);
    expect(human.stdout).toMatch(/1\. Kiwi \(note/);
    expect((await runCli(['recall', 'x', '--home', dir, '--facet', 'bad'])).status).toBe(2);
    expect((await runCli(['remember', '--home', dir, '--type', 'note'], { input: '' })).status).toBe(2);
  });
});

function runWorker(dir: string, worker: number, count: number, pad = 0, pause?: string) {
  const args = [WORKER, dir, String(worker), String(count), String(pad), ...(pause ? [pause] : [])];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const done = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.on('exit', (code) => resolve(code));
  });
  return { child, done, stderr: () => stderr };
}

function indexLines(dir: string): string[] {
  return readFileSync(join(dir, 'memory', 'MEMORY.md'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('- ['));
}

describe('memory concurrency', () => {
  it('N processes remembering M memories each into one home: N*M files, N*M index lines, all recallable', async () => {
    const t = tempDir();
    cleanup.push(t.dispose);
    const N = 4;
    const M = 50;
    const workers = Array.from({ length: N }, (_, w) => runWorker(t.dir, w, M));
    const codes = await Promise.all(workers.map((w) => w.done));
    expect(codes, workers.map((w) => w.stderr()).join('\n')).toEqual(Array(N).fill(0));
    const files = readdirSync(join(t.dir, 'memory')).filter((f) => f.endsWith('.md') && f !== 'MEMORY.md');
    expect(files).toHaveLength(N * M);
    const lines = indexLines(t.dir);
    expect(lines).toHaveLength(N * M);
    expect(new Set(lines).size).toBe(N * M);

    const wired = await wireStdio(['serve', '--home', t.dir]);
    cleanup.push(wired.close);
    for (let w = 0; w < N; w++) {
      for (let i = 0; i < M; i++) {
        const out = structured<Hits>(
          await wired.client.callTool({ name: 'recall', arguments: { query: `tok${w}x${i}`, k: 1 } }),
        );
        expect(out.results[0]?.name).toBe(`w${w} m${i}`);
      }
    }
  }, 120_000);

  // The writer pauses at a known point of memory m3's write and waits; the kill lands there.
  for (const phase of ['temp', 'rename', 'index'] as const) {
    it(`a remember process killed with SIGKILL mid-write (${phase}) leaves no corrupt file`, async () => {
      const t = tempDir();
      cleanup.push(t.dispose);
      const dir = join(t.dir, 'memory');
      const worker = runWorker(t.dir, 7, 10, 20_000, `3:${phase}`);
      const marker = join(t.dir, 'paused.json');
      // The worker writes the marker when it pauses; it is whole once it parses.
      const readMarker = (): { file: string; tmp?: string } | undefined => {
        try {
          return JSON.parse(readFileSync(marker, 'utf8'));
        } catch {
          return undefined;
        }
      };
      const deadline = Date.now() + 20_000;
      while (!readMarker() && worker.child.exitCode === null && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      const paused = readMarker();
      expect(paused, worker.stderr()).toBeDefined();
      worker.child.kill('SIGKILL');
      expect(await worker.done).toBeNull(); // killed, not exited

      const files = readdirSync(dir).filter((f) => f.endsWith('.md') && f !== 'MEMORY.md');
      const temps = readdirSync(dir).filter((f) => /\.md\.\d+$/.test(f));
      // Every memory file is complete: its frontmatter parses and its body is all there.
      for (const file of files) {
        const text = readFileSync(join(dir, file), 'utf8');
        const fm = parseFrontmatter(text);
        expect(fm.error, file).toBeUndefined();
        expect(fm.data.name, file).toMatch(/^w7 m\d+$/);
        expect(fm.body, file).toMatch(/^Worker 7 memory \d+: token tok7x\d+ marks it\. lorem/);
        expect(fm.body.length, file).toBeGreaterThan(20_000);
        expect(text.endsWith('\n'), file).toBe(true);
      }
      const lines = indexLines(t.dir);
      expect(lines).toHaveLength(3);
      for (const line of lines) {
        const m = /^- \[(w7 m\d+)\]\((note_w7_m\d+\.md)\) - .+$/.exec(line);
        expect(m, line).not.toBeNull();
        expect(files).toContain(m![2]);
      }
      if (phase === 'index') {
        // Killed between the two steps: a complete memory without its index line.
        expect(files.sort()).toEqual(['note_w7_m0.md', 'note_w7_m1.md', 'note_w7_m2.md', paused!.file]);
        expect(temps).toEqual([]);
      } else {
        // Killed inside the atomic write: the memory is absent, its temp file left behind.
        expect(files.sort()).toEqual(['note_w7_m0.md', 'note_w7_m1.md', 'note_w7_m2.md']);
        expect(temps).toEqual([paused!.tmp!.split(/[\\/]/).pop()]);
        if (phase === 'temp') expect(statSync(paused!.tmp!).size).toBeLessThan(20_000);
      }

      // Readers ignore the temp file; recall skips nothing and finds every complete memory.
      const recall = await runCli(['recall', 'tok7x2', '--home', t.dir, '--json']);
      const out = JSON.parse(recall.stdout) as Hits & { skipped: unknown[]; indexed: number };
      expect(out.skipped).toEqual([]);
      expect(out.indexed).toBe(files.length);
      expect(out.results[0]?.name).toBe('w7 m2');

      // Writing m3 again: a memory without an index line still holds its name.
      const again = await runCli(['remember', '--home', t.dir, '--type', 'note', '--name', 'w7 m3'], {
        input: 'x',
      });
      expect(again.status).toBe(phase === 'index' ? 2 : 0);
      // A later remember removes temp files older than a minute, and only those.
      for (const tmp of temps)
        utimesSync(join(dir, tmp), new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
      writeFileSync(join(dir, 'note_fresh.md.123456'), 'in flight');
      const later = await runCli(['remember', '--home', t.dir, '--type', 'note', '--name', 'later'], {
        input: 'later',
      });
      expect(later.status, later.stderr).toBe(0);
      expect(readdirSync(dir).filter((f) => /\.md\.\d+$/.test(f))).toEqual(['note_fresh.md.123456']);
    }, 120_000);
  }
});
