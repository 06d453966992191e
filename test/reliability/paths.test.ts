/**
 * Traversal and symlink probes for every path input, and bad directories: a state file that is a
 * symlink out of its directory or a FIFO is refused with an error naming it; nothing outside is
 * read or written; a directory that must exist is not created; an uncreatable home fails fast.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleHomeCopy, run, tempDir } from '../helpers/index.js';
import { cli, figure, structuredOf, textOf, wire } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
function dir(prefix = 'firstlight-r-paths-'): string {
  const t = tempDir(prefix);
  cleanups.push(t.dispose);
  return t.dir;
}
function home(): string {
  const h = exampleHomeCopy();
  cleanups.push(h.dispose);
  return h.dir;
}
/** A project whose `.firstlight/<name>` is a symlink to a file outside, and that file. */
function linkedProject(name: string, outsideText: string) {
  const project = dir();
  const outside = join(dir(), 'outside.json');
  writeFileSync(outside, outsideText);
  mkdirSync(join(project, '.firstlight'));
  symlinkSync(outside, join(project, '.firstlight', name));
  return { project, outside, link: join(project, '.firstlight', name) };
}

describe('traversal and symlink probes', () => {
  const SECRET = '{"name": "outside", "description": "a file elsewhere"}\n';

  it('taskspace --set-name refuses a taskspace.json linked out of .firstlight/ and leaves the target alone', async () => {
    const { project, outside, link } = linkedProject('taskspace.json', SECRET);
    const out = await cli(['taskspace', '--project', project, '--home', home(), '--set-name', 'evil']);
    expect(out.status).toBe(2);
    expect(out.stderr).toContain(link);
    expect(out.stderr).toMatch(/symlink/);
    expect(readFileSync(outside, 'utf8')).toBe(SECRET);
  });

  it('update_taskspace and get_taskspace refuse the same link over MCP', async () => {
    const { project, outside, link } = linkedProject('taskspace.json', SECRET);
    const w = await wire(['serve', '--home', home()], { cwd: project });
    cleanups.push(w.close);
    const update = await w.client.callTool({ name: 'update_taskspace', arguments: { name: 'evil' } });
    expect(update.isError).toBe(true);
    expect(textOf(update)).toContain(link);
    const read = await w.client.callTool({ name: 'get_taskspace', arguments: {} });
    expect(JSON.stringify(read)).not.toContain('a file elsewhere');
    expect(readFileSync(outside, 'utf8')).toBe(SECRET);
  });

  it('a FIFO as taskspace.json is refused at once, not read', async ({ task }) => {
    const project = dir();
    mkdirSync(join(project, '.firstlight'));
    await run('mkfifo', [join(project, '.firstlight', 'taskspace.json')]);
    const out = await cli(['taskspace', '--project', project, '--home', home(), '--set-name', 'x'], {
      timeoutMs: 15_000,
    });
    figure(task, 'FIFO refusal ms', out.ms);
    expect(out.signal).toBeNull();
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/FIFO/);
  });

  it('save_state and restore_state refuse a link in repl/states/', async () => {
    const h = home();
    const outside = join(dir(), 'elsewhere.json');
    writeFileSync(outside, SECRET);
    mkdirSync(join(h, 'repl', 'states'), { recursive: true });
    symlinkSync(outside, join(h, 'repl', 'states', 'snap.json'));
    const w = await wire(['repl', 'serve', '--home', h]);
    cleanups.push(w.close);
    const saved = await w.client.callTool({ name: 'save_state', arguments: { name: 'snap' } });
    expect(saved.isError).toBe(true);
    expect(textOf(saved)).toContain(join(h, 'repl', 'states', 'snap.json'));
    const restored = await w.client.callTool({ name: 'restore_state', arguments: { name: 'snap' } });
    expect(restored.isError).toBe(true);
    expect(textOf(restored)).toMatch(/symlink/);
    expect(readFileSync(outside, 'utf8')).toBe(SECRET);
  });

  it('internalize sets a self-state.json link aside instead of writing through it', async () => {
    const h = home();
    const outside = join(dir(), 'self.json');
    writeFileSync(outside, SECRET);
    symlinkSync(outside, join(h, 'self-state.json'));
    const out = await cli([
      'internalize',
      '--home',
      h,
      '--tail',
      'I was in the middle of the parser rewrite.',
    ]);
    expect(out.status, out.stderr).toBe(0);
    expect(readFileSync(outside, 'utf8')).toBe(SECRET);
    expect(readdirSync(h).some((f) => f.startsWith('self-state.malformed-'))).toBe(true);
  });

  it('a sessions.jsonl link is not appended to; the packet says why', async () => {
    const h = home();
    const outside = join(dir(), 'sessions.jsonl');
    writeFileSync(outside, '');
    symlinkSync(outside, join(h, 'sessions.jsonl'));
    const w = await wire(['serve', '--home', h]);
    cleanups.push(w.close);
    const packet = structuredOf<{ degraded_mode: { reasons: string[] } }>(
      await w.client.callTool({ name: 'bootstrap_session', arguments: { session_id: 's1' } }),
    );
    expect(readFileSync(outside, 'utf8')).toBe('');
    expect(packet.degraded_mode.reasons.join('\n')).toMatch(/sessions\.jsonl/);
  });

  it('install refuses a project manifest linked out of .firstlight/', async () => {
    const { project, outside, link } = linkedProject('install-manifest.json', '{"version":1,"files":{}}');
    const out = await cli(['install', 'claude', '--project', project, '--home', home()], {
      env: { HOME: dir() },
    });
    expect(out.status).toBe(2);
    expect(out.stderr).toContain(link);
    expect(readFileSync(outside, 'utf8')).toBe('{"version":1,"files":{}}');
  });

  it('read_memory_file and resource URIs refuse traversal', async () => {
    const w = await wire(['serve', '--home', home()]);
    cleanups.push(w.close);
    for (const path of ['../firstlight.yaml', '/etc/passwd', 'people/../../firstlight.yaml']) {
      const read = await w.client.callTool({ name: 'read_memory_file', arguments: { path } });
      expect(read.isError, path).toBe(true);
    }
  });
});

describe('bad paths', () => {
  it('init --home /proc/forbidden fails fast with exit 2, no spin', async ({ task }) => {
    const out = await cli(['init', '--home', '/proc/forbidden'], { timeoutMs: 10_000 });
    figure(task, 'init /proc ms', out.ms);
    expect(out.signal).toBeNull();
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/cannot create directory \/proc\/forbidden/);
  });

  it('init --home under a regular file fails naming it', async () => {
    const file = join(dir(), 'plain');
    writeFileSync(file, '');
    const out = await cli(['init', '--home', join(file, 'home')]);
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/not a directory/);
  });

  it('taskspace --project /nonexistent/dir is an error and creates nothing', async () => {
    const missing = join(dir(), 'nonexistent', 'dir');
    const out = await cli(['taskspace', '--project', missing, '--home', home(), '--set-name', 'x']);
    expect(out.status).toBe(2);
    expect(out.stderr).toContain(missing);
    expect(existsSync(join(missing, '..'))).toBe(false);
  });

  it('install and doctor --project of a missing directory are errors and create nothing', async () => {
    const missing = join(dir(), 'nowhere');
    for (const args of [['install', 'claude'], ['doctor']]) {
      const out = await cli([...args, '--project', missing, '--home', home()], { env: { HOME: dir() } });
      expect(out.status, args.join(' ')).toBe(2);
      expect(existsSync(missing)).toBe(false);
    }
  });
});
