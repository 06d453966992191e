import { symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveCommands } from '../../../src/host/index.js';
import { REPO_ROOT, tempDir } from '../../helpers/index.js';

const disposers: (() => void)[] = [];
afterEach(() => {
  for (const dispose of disposers.splice(0)) dispose();
});

const CLI = join(REPO_ROOT, 'dist', 'cli', 'main.js');

/** A PATH directory whose `firstlight` links to `target`. */
function pathWith(target: string): string {
  const t = tempDir();
  disposers.push(t.dispose);
  symlinkSync(target, join(t.dir, 'firstlight'));
  return t.dir;
}

describe('how hosts start firstlight', () => {
  it('by name when `firstlight` on PATH is this build (its bin, as npm links it, or main.js)', () => {
    for (const target of [join(REPO_ROOT, 'dist', 'cli', 'firstlight.cjs'), CLI]) {
      const { server } = resolveCommands({
        cliPath: CLI,
        execPath: '/usr/bin/node',
        env: { PATH: pathWith(target) },
      });
      expect(server.command, target).toBe('firstlight');
      expect(server.args).toEqual(['serve']);
    }
  });

  it('hooks by name too, portable only without a pinned home (issue 37)', () => {
    const PATH = pathWith(join(REPO_ROOT, 'dist', 'cli', 'firstlight.cjs'));
    const byName = resolveCommands({ cliPath: CLI, execPath: '/usr/bin/node', env: { PATH } });
    expect(byName.hookArgv('pre-tool-use', 'copilot')).toEqual([
      'firstlight',
      'hook',
      'pre-tool-use',
      '--host',
      'copilot',
    ]);
    expect(byName.portable).toBe(true);
    const pinned = resolveCommands({
      cliPath: CLI,
      execPath: '/usr/bin/node',
      env: { PATH },
      home: '/srv/h',
    });
    expect(pinned.hookArgv('stop')).toEqual(['firstlight', 'hook', 'stop', '--home', '/srv/h']);
    expect(pinned.portable).toBe(false);
    const none = resolveCommands({ cliPath: CLI, execPath: '/usr/bin/node', env: { PATH: '' } });
    expect(none.hookArgv('stop')).toEqual([
      '/usr/bin/node',
      join(REPO_ROOT, 'dist', 'cli', 'hook.cjs'),
      'stop',
    ]);
    expect(none.portable).toBe(false);
  });

  it('by node and the entry path when `firstlight` on PATH is another program, or there is none', () => {
    const other = tempDir();
    disposers.push(other.dispose);
    const elsewhere = join(other.dir, 'other.cjs');
    writeFileSync(elsewhere, '', { mode: 0o755 });
    for (const PATH of [pathWith(elsewhere), '']) {
      const { server } = resolveCommands({ cliPath: CLI, execPath: '/usr/bin/node', env: { PATH } });
      expect(server.command).toBe('/usr/bin/node');
      expect(server.args).toEqual([CLI, 'serve']);
    }
  });
});
