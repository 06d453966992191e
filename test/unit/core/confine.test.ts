import { existsSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  appendStateLine,
  confinedPath,
  confineFile,
  ensureDir,
  isInside,
  openConfined,
  readConfined,
  readStateFile,
  requireDir,
  sweepLeftovers,
  UnsafeFileError,
  writeConfined,
  writeConfinedSync,
  writeStateFile,
} from '../../../src/core/index.js';
import { run, tempDir } from '../../helpers/index.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});
function dir(): string {
  const t = tempDir('firstlight-confine-');
  cleanups.push(t.dispose);
  return t.dir;
}

describe('confineFile and the state-file helpers', () => {
  it('accepts a missing file, a regular file and a link inside its directory', async () => {
    const d = dir();
    expect(() => confineFile(join(d, 'absent.json'))).not.toThrow();
    await writeStateFile(join(d, 'a.json'), '{}');
    symlinkSync(join(d, 'a.json'), join(d, 'b.json'));
    expect(readStateFile(join(d, 'b.json'))).toBe('{}');
  });

  it('refuses a link out of the directory, a dangling link and a FIFO, naming the path', async () => {
    const d = dir();
    const outside = join(dir(), 'x.json');
    writeFileSync(outside, 'outside');
    symlinkSync(outside, join(d, 'out.json'));
    symlinkSync(join(d, 'nowhere.json'), join(d, 'dangling.json'));
    await run('mkfifo', [join(d, 'pipe.json')]);
    await expect(writeStateFile(join(d, 'out.json'), 'evil')).rejects.toThrow(UnsafeFileError);
    expect(readFileSync(outside, 'utf8')).toBe('outside');
    expect(() => readStateFile(join(d, 'dangling.json'))).toThrow(/leads nowhere/);
    expect(() => readStateFile(join(d, 'pipe.json'))).toThrow(/pipe\.json: a FIFO/);
  });
});

describe('the confinement rule (openConfined, readConfined, writeConfined)', () => {
  it('refuses a path that leaves its root, and a nested link or directory link that leads out', () => {
    const root = dir();
    const outside = dir();
    writeFileSync(join(outside, 'secret.md'), 'KEY');
    expect(() => readConfined('../x.md', { root })).toThrow(/a path outside/);
    expect(() => readConfined(join(outside, 'secret.md'), { root })).toThrow(UnsafeFileError);
    symlinkSync(outside, join(root, 'sub'));
    expect(() => readConfined('sub/secret.md', { root })).toThrow(/outside/);
    symlinkSync('/proc/self/environ', join(root, 'env.md'));
    expect(() => readConfined('env.md', { root })).toThrow(/a symlink to .*outside/);
  });

  it('tells inside from a sibling that shares a prefix, and a nested path from a direct child', () => {
    expect(isInside('/a/b', '/a/b')).toBe(true);
    expect(isInside('/a/b', '/a/b/c')).toBe(true);
    expect(isInside('/a/b/', '/a/b/c')).toBe(true);
    expect(isInside('/a/b', '/a/bc')).toBe(false);
    expect(isInside('/a/b', '/a/b/../c')).toBe(false);
    expect(isInside('/', '/etc/passwd')).toBe(true);
    expect(confinedPath('/a/b/c.json')).toEqual({ path: '/a/b/c.json', root: '/a/b', nested: false });
    expect(confinedPath('x/y.md', '/r')).toEqual({ path: '/r/x/y.md', root: '/r', nested: true });
    expect(() => confinedPath('/r2/y.md', '/r')).toThrow(UnsafeFileError);
    expect(() => confinedPath('../y.md', '/r')).toThrow(/a path outside \/r/);
    expect(() => confinedPath('/r', '/r')).toThrow(UnsafeFileError);
  });

  it('follows a link that stays inside its root, and reads /proc-style files whose size says 0', () => {
    const root = dir();
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'a', 'real.md'), 'inside');
    symlinkSync(join(root, 'a', 'real.md'), join(root, 'alias.md'));
    expect(readConfined('alias.md', { root })).toBe('inside');
    expect(readConfined('/proc/self/status', { root: '/proc/self' })).toMatch(/^Name:/);
    expect(() => readConfined('a/real.md', { root, maxBytes: 3 })).toThrow(/over the 3-byte limit/);
  });

  it('writes by rename: a link out is refused, never written through; a new file is created', async () => {
    const root = dir();
    const outside = join(dir(), 'victim.sh');
    writeFileSync(outside, 'original');
    symlinkSync(outside, join(root, 'm.md'));
    expect(() => writeConfinedSync(join(root, 'm.md'), 'evil', { root })).toThrow(UnsafeFileError);
    await expect(writeConfined(join(root, 'm.md'), 'evil', { root })).rejects.toThrow(UnsafeFileError);
    symlinkSync(join(root, 'gone.md'), join(root, 'dangling.md'));
    await expect(writeConfined(join(root, 'dangling.md'), 'x')).rejects.toThrow(/leads nowhere/);
    expect(readFileSync(outside, 'utf8')).toBe('original');
    await writeConfined(join(root, 'new.md'), 'fresh', { root });
    expect(readFileSync(join(root, 'new.md'), 'utf8')).toBe('fresh');
  });

  it('appends only to a regular file: a FIFO with no reader and a link out are refused', async () => {
    const d = dir();
    const outside = join(dir(), 'log.jsonl');
    writeFileSync(outside, '');
    symlinkSync(outside, join(d, 'events.jsonl'));
    expect(() => appendStateLine(join(d, 'events.jsonl'), '{}')).toThrow(/outside/);
    await run('mkfifo', [join(d, 'pipe.jsonl')]);
    expect(() => appendStateLine(join(d, 'pipe.jsonl'), '{}')).toThrow(/FIFO/);
    expect(() => openConfined(join(d, 'pipe.jsonl'))).toThrow(/FIFO/);
    expect(readFileSync(outside, 'utf8')).toBe('');
  });
});

describe('ensureDir and requireDir', () => {
  it('creates missing levels, and fails fast under /proc and under a file', () => {
    const d = dir();
    ensureDir(join(d, 'a', 'b', 'c'));
    expect(existsSync(join(d, 'a', 'b', 'c'))).toBe(true);
    expect(() => ensureDir('/proc/forbidden/x')).toThrow(/cannot create directory/);
    writeFileSync(join(d, 'file'), '');
    expect(() => ensureDir(join(d, 'file', 'sub'))).toThrow(/is not a directory/);
  });

  it('requireDir names a missing directory and never creates it', () => {
    const missing = join(dir(), 'nope');
    expect(() => requireDir(missing, '--project')).toThrow(/--project .*nope does not exist/);
    expect(existsSync(missing)).toBe(false);
  });
});

describe('sweepLeftovers', () => {
  it('removes old temp files and stale locks, keeps fresh ones and user files', () => {
    const d = dir();
    mkdirSync(join(d, 'memory'));
    const old = new Date(Date.now() - 120_000);
    for (const name of ['memory/a.md.123456', 'memory/v1.2', 'self-state.json.99'])
      writeFileSync(join(d, name), '');
    mkdirSync(join(d, 'sessions.jsonl.lock'));
    for (const name of ['memory/a.md.123456', 'memory/v1.2', 'sessions.jsonl.lock'])
      utimesSync(join(d, name), old, old);
    const removed = sweepLeftovers([d]).map((l) => `${l.kind} ${l.path.slice(d.length + 1)}`);
    expect(removed.sort()).toEqual(['lock sessions.jsonl.lock', 'temp memory/a.md.123456']);
    expect(existsSync(join(d, 'memory', 'v1.2'))).toBe(true);
    expect(existsSync(join(d, 'self-state.json.99'))).toBe(true);
  });
});
