import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createHome,
  exampleHomeDir,
  HOME_TEMPLATE,
  initHome,
  isHome,
  requireHome,
  resolveHome,
} from '../../../src/core/index.js';
import { tempDir } from '../../helpers/index.js';

/** Every path under `dir`, relative, sorted. */
function tree(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((d) => {
      const rel = prefix ? `${prefix}/${d.name}` : d.name;
      return d.isDirectory() ? [`${rel}/`, ...tree(dir, rel)] : [rel];
    })
    .sort();
}

describe('resolveHome', () => {
  it('takes --home over FIRSTLIGHT_HOME over ~/.firstlight', () => {
    const base = { cwd: '/work', userHome: '/users/ada' };
    expect(resolveHome({ ...base, env: {} })).toEqual({ dir: '/users/ada/.firstlight', source: 'default' });
    expect(resolveHome({ ...base, env: { FIRSTLIGHT_HOME: 'e' } })).toEqual({
      dir: '/work/e',
      source: 'env',
    });
    expect(resolveHome({ ...base, env: { FIRSTLIGHT_HOME: 'e' }, flag: '/f' })).toEqual({
      dir: '/f',
      source: 'flag',
    });
    // An empty variable is unset, not "the current directory".
    expect(resolveHome({ ...base, env: { FIRSTLIGHT_HOME: '' } }).source).toBe('default');
  });
});

describe('initHome', () => {
  const temps: (() => void)[] = [];
  afterEach(() => {
    for (const dispose of temps.splice(0)) dispose();
  });

  it('copies only the home template from a dirty example (no demo state, no locks)', () => {
    const t = tempDir();
    temps.push(t.dispose);
    const example = join(t.dir, 'example');
    const files: Record<string, string> = {
      'firstlight.yaml': 'persona: {name: Wren}\n',
      'persona/agent_system.md': '# Wren\n',
      'memory/MEMORY.md': '# Index\n',
      'memory/user_alex.md': '---\ntype: user\nname: Alex\n---\n',
      'guidance/style.md': '---\nname: style\n---\n',
      // Demo state a served example collects:
      'sessions.jsonl': '{"session_id":null,"at":"2026-11-20T10:00:00.000Z"}\n',
      'self-state.json': '{}',
      'cache/memory-entries.json': '{}',
      'events/2026-11-20.jsonl': '{}\n',
      'repl/states/autosave.json': '{}',
      'journal/2026.tsv': 'x\n',
      'notes-from-a-demo.txt': 'x',
    };
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(join(example, rel, '..'), { recursive: true });
      writeFileSync(join(example, rel), text);
    }
    for (const lock of ['sessions.jsonl.lock', 'memory/MEMORY.md.lock', 'persona/x.lock'])
      mkdirSync(join(example, lock), { recursive: true });

    const home = join(t.dir, 'home');
    initHome(home, { from: example });
    expect(tree(home)).toEqual([
      'firstlight.yaml',
      'guidance/',
      'guidance/style.md',
      'memory/',
      'memory/MEMORY.md',
      'memory/user_alex.md',
      'persona/',
      'persona/agent_system.md',
    ]);
  });

  it('the bundled example holds only template entries, so nothing of it is silently left out', () => {
    const extra = readdirSync(exampleHomeDir()).filter(
      (name) =>
        !HOME_TEMPLATE.includes(name) &&
        // State `npm start` leaves in the example (gitignored), never copied:
        !['cache', 'events', 'repl', 'self-state.json'].includes(name) &&
        !name.startsWith('sessions.') &&
        !name.endsWith('.lock'),
    );
    expect(extra).toEqual([]);
  });

  it('requireHome refuses a missing home with the fix and creates nothing', () => {
    const t = tempDir();
    temps.push(t.dispose);
    const home = join(t.dir, 'h');
    expect(() => requireHome(home)).toThrow(
      expect.objectContaining({
        code: 'HOME_NOT_FOUND',
        exitCode: 1,
        hint: expect.stringContaining(`firstlight init --home ${home}`),
      }),
    );
    expect(readdirSync(t.dir)).toEqual([]);
    createHome(home, { name: 'Kestrel', user: 'Ada, a data engineer', style: 'terse' });
    expect(isHome(home)).toBe(true);
    expect(() => requireHome(home)).not.toThrow();
  });

  it("createHome writes the user's persona, an empty memory (only the index) and the runtime's role personas, never overwriting", () => {
    const t = tempDir();
    temps.push(t.dispose);
    const home = join(t.dir, 'h');
    createHome(home, { name: 'Kestrel', user: 'Ada, a data engineer', style: 'Terse answers.' });
    expect(tree(home)).toEqual([
      'firstlight.yaml',
      'memory/',
      'memory/MEMORY.md',
      'persona/',
      'persona/agent_system.md',
      'personas/',
      'personas/auditor.yaml',
      'personas/builder.yaml',
      'personas/explorer.yaml',
      'personas/planner.yaml',
      'personas/prompts/',
      'personas/prompts/auditor.md',
      'personas/prompts/builder.md',
      'personas/prompts/explorer.md',
      'personas/prompts/planner.md',
      'personas/prompts/resolver.md',
      'personas/resolver.yaml',
    ]);
    const persona = readFileSync(join(home, 'persona', 'agent_system.md'), 'utf8');
    expect(persona).toContain('You are Kestrel');
    expect(persona).toContain('Ada, a data engineer');
    expect(persona).toContain('Terse answers.');
    expect(readFileSync(join(home, 'firstlight.yaml'), 'utf8')).toContain('name: "Kestrel"');
    expect(() => createHome(home, { name: 'Other', user: '', style: '' })).toThrow(/not empty/);
    writeFileSync(join(home, 'personas', 'explorer.yaml'), 'persona: mine\n');
    createHome(home, { name: 'Other', user: '', style: '' }, { force: true });
    expect(readFileSync(join(home, 'persona', 'agent_system.md'), 'utf8')).toBe(persona);
    expect(readFileSync(join(home, 'personas', 'explorer.yaml'), 'utf8')).toBe('persona: mine\n');
  });
});
