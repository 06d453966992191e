import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultSettings } from '../../../src/core/index.js';
import { StateStore } from '../../../src/repl/index.js';
import { REPO_ROOT } from '../../helpers/index.js';

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
    expect(s.read('my_session.json').state.capabilities.fs?.args).toEqual(['/root']);
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

/** The example of the seed (002, section 7.2), verbatim. */
const SEED_EXAMPLE = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'repl', 'seed-state.json'), 'utf8');

describe('StateStore reading the seed format', () => {
  it("loads the seed's example file: one-string commands, dict args, a dill variable", () => {
    const s = store();
    mkdirSync(s.dir, { recursive: true });
    writeFileSync(join(s.dir, 'seed.json'), SEED_EXAMPLE);
    const { state, invalid } = s.read('seed');
    expect(invalid).toEqual([]);
    expect(state.capabilities).toEqual({
      gmail: { command: 'npx @anthropic/gmail-mcp', env: {} },
      fs: { command: 'npx @anthropic/filesystem-mcp', args: ['--root', '/home/user'], env: {} },
    });
    expect(state.functions.my_helper).toEqual({
      source: 'def my_helper(x):\n    return x * 2',
      signature: '(x)',
    });
    // Unknown variable types load here; the kernel restores what it can and reports the rest.
    expect(state.variables.data).toEqual({ type: 'dill', value: 'base64-encoded-dill-bytes' });
    expect(state.history).toHaveLength(3);
    expect(state).toMatchObject({ native_capabilities: {}, classes: {}, unsaved: [], execution_count: 0 });
  });

  it('maps dict args to flags: --key value, true a bare flag, false and null left out', () => {
    const s = store();
    mkdirSync(s.dir, { recursive: true });
    const args = { root: '/x', n: 3, verbose: true, quiet: false, skip: null, '-v': '2' };
    writeFileSync(
      join(s.dir, 'flags.json'),
      JSON.stringify({ version: 1, capabilities: { c: { command: 'srv', args } } }),
    );
    expect(s.read('flags').state.capabilities.c?.args).toEqual([
      '--root',
      '/x',
      '--n',
      '3',
      '--verbose',
      '-v',
      '2',
    ]);
  });

  it('reports a malformed entry alone and loads the rest', () => {
    const s = store();
    mkdirSync(s.dir, { recursive: true });
    writeFileSync(
      join(s.dir, 'mixed.json'),
      JSON.stringify({
        version: 1,
        capabilities: { bad: { args: ['x'] }, good: { command: 'srv' } },
        functions: { f: { source: 'def f(): pass' }, g: { signature: '()' } },
        variables: { v: { type: 'json', value: 1 }, w: 'not an object' },
      }),
    );
    const { state, invalid } = s.read('mixed');
    expect(Object.keys(state.capabilities)).toEqual(['good']);
    expect(Object.keys(state.functions)).toEqual(['f']);
    expect(Object.keys(state.variables)).toEqual(['v']);
    expect(invalid.map((item) => [item.section, item.problem.name, item.problem.kind])).toEqual([
      ['capabilities', 'bad', 'capability'],
      ['functions', 'g', 'function'],
      ['variables', 'w', 'variable'],
    ]);
    expect(invalid[0]?.problem.reason).toMatch(/^invalid entry capabilities\.bad\.command: /);
    expect(invalid[0]?.entry).toEqual({ args: ['x'] });
  });
});

describe('StateStore.setAside', () => {
  it('renames an unreadable state so the next save cannot overwrite it', () => {
    const s = store();
    mkdirSync(s.dir, { recursive: true });
    writeFileSync(join(s.dir, 'autosave.json'), '{ torn');
    const aside = s.setAside('autosave', new Date('2026-01-02T03:04:05.678Z'));
    expect(aside).toBe(join(s.dir, 'autosave.unreadable-2026-01-02T03-04-05-678Z.json'));
    expect(s.list()).toEqual(['autosave.unreadable-2026-01-02T03-04-05-678Z']);
    expect(s.exists('autosave')).toBe(false);
  });

  it('sets aside a state whose name has the longest length allowed, and one named with .json', () => {
    const s = store();
    mkdirSync(s.dir, { recursive: true });
    const long = 'n'.repeat(100);
    writeFileSync(join(s.dir, `${long}.json`), '{ torn');
    const at = new Date('2026-01-02T03:04:05.678Z');
    expect(s.setAside(long, at)).toBe(join(s.dir, `${long}.unreadable-2026-01-02T03-04-05-678Z.json`));
    expect(s.exists(long)).toBe(false);
    writeFileSync(join(s.dir, 'mine.json'), '{ torn');
    expect(s.setAside('mine.json', at)).toBe(join(s.dir, 'mine.unreadable-2026-01-02T03-04-05-678Z.json'));
    expect(s.exists('mine')).toBe(false);
  });
});

describe('repl settings', () => {
  it('has defaults for every key', () => {
    expect(defaultSettings().repl).toEqual({
      timeout_s: 120,
      output_max_chars: 20_000,
      interrupt_grace_s: 2,
      python: 'python3',
      kernel: 'stdlib',
      autosave: true,
    });
  });
});
