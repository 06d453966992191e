import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultSettings } from '../../../src/core/index.js';
import { StateStore } from '../../../src/repl/index.js';

const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function store(): StateStore {
  const home = mkdtempSync(join(tmpdir(), 'firstlight-store-'));
  homes.push(home);
  return new StateStore(home);
}

describe('StateStore', () => {
  it('writes and reads a state under <home>/repl/states, with defaults for missing sections', async () => {
    const s = store();
    const file = await s.write('my_session', {
      version: 1,
      saved_at: '2026-01-01T00:00:00.000Z',
      capabilities: { fs: { command: '/bin/fs', args: ['/root'], env: {}, cwd: null } },
      native_capabilities: {},
      functions: {},
      classes: {},
      variables: { x: { type: 'json', value: 1 } },
      history: ['x = 1'],
      execution_count: 1,
      unsaved: [],
    });
    expect(file).toBe(join(s.dir, 'my_session.json'));
    expect(s.read('my_session.json').capabilities.fs?.args).toEqual(['/root']);
    expect(s.list()).toEqual(['my_session']);
  });

  it('refuses names that are not plain file names', () => {
    const s = store();
    for (const bad of ['../x', 'a/b', '', '.hidden'])
      expect(() => s.fileFor(bad), bad).toThrow(/plain file name/);
  });

  it('names the missing state and the bad field', () => {
    const s = store();
    expect(() => s.read('nope')).toThrow(/no saved state "nope"/);
    mkdirSync(s.dir, { recursive: true });
    writeFileSync(join(s.dir, 'bad.json'), JSON.stringify({ version: 2, saved_at: 'x' }));
    expect(() => s.read('bad')).toThrow(/version/);
  });
});

describe('repl settings', () => {
  it('has defaults for every key', () => {
    expect(defaultSettings().repl).toEqual({
      timeout_s: 120,
      output_max_chars: 20_000,
      interrupt_grace_s: 2,
      python: 'python3',
      autosave: true,
    });
  });
});
