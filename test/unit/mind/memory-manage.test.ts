import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkMemoryText,
  createMind,
  fileNameFor,
  forgetMemory,
  isValidType,
  listForgotten,
  MEMORY_TYPES,
  normalizeType,
  openRecallIndex,
  restoreMemory,
} from '../../../src/mind/index.js';
import { exampleHomeCopy } from '../../helpers/index.js';

const cleanup: (() => unknown)[] = [];
afterEach(() => {
  while (cleanup.length) cleanup.pop()!();
});

describe('memory types', () => {
  it('accepts the closed list and custom:NAME, lower-cased; refuses anything else naming the valid ones', () => {
    for (const t of MEMORY_TYPES) expect(normalizeType(t.toUpperCase())).toBe(t);
    expect(normalizeType(' custom:Recipe ')).toBe('custom:recipe');
    expect(normalizeType('custom:note')).toBe('note');
    expect(() => normalizeType('banana')).toThrow(/type "banana" is not a memory type/);
    try {
      normalizeType('banana');
    } catch (error) {
      expect((error as { hint: string }).hint).toBe(
        'type: one of user, feedback, caution, project, reference, note, session, session_digest; for another kind pass custom:NAME (CLI: --type custom:banana)',
      );
    }
    for (const bad of ['custom:', 'custom:a b', 'custom:index', 'custom:../x', 'index', '']) {
      expect(() => normalizeType(bad), bad).toThrow(/not a (valid custom type|memory type)/);
    }
    expect(isValidType('custom:recipe')).toBe(true);
    expect(isValidType('decision')).toBe(false);
  });

  it("prefixes a custom type's files with its own name (no colon in a file name)", () => {
    expect(fileNameFor('custom:recipe', 'Banana bread')).toBe('recipe_banana_bread.md');
    expect(fileNameFor('custom:recipe', 'recipe for bread')).toBe('recipe_for_bread.md');
  });
});

describe('checkMemoryText', () => {
  const ok = '---\nname: A\ntype: note\ndescription: d\ntags: [x]\n---\nbody\n';
  it('returns the fields of a valid memory and names the field of an invalid one', () => {
    expect(checkMemoryText(ok)).toEqual({ name: 'A', type: 'note', description: 'd' });
    const cases: [string, RegExp][] = [
      ['no frontmatter\n', /^frontmatter: missing/],
      ['---\nname: A\ntype: note\n', /^frontmatter: never closes/],
      ['---\nname: [A\n---\n', /^frontmatter: frontmatter is not valid YAML/],
      ['---\n- a\n---\n', /^frontmatter: frontmatter is not a YAML mapping/],
      ['---\ntype: note\n---\n', /^name: must be a non-empty string/],
      ['---\nname: A\n---\n', /^type: is missing/],
      ['---\nname: A\ntype: banana\n---\n', /^type: "banana" is not a memory type/],
      ['---\nname: A\ntype: note\ndescription: [1]\n---\n', /^description: must be a string/],
      ['---\nname: A\ntype: note\ntags: {a: 1}\n---\n', /^tags: must be a list of strings/],
      ['---\nname: A\ntype: note\napplies_to: [[Bash]]\n---\n', /^applies_to: must be a list of strings/],
    ];
    for (const [text, message] of cases) expect(() => checkMemoryText(text), text).toThrow(message);
    // A type outside the list that the file already had is kept.
    expect(checkMemoryText('---\nname: A\ntype: decision\n---\n', { previousType: 'decision' }).type).toBe(
      'decision',
    );
  });
});

describe('forget and restore in one process (a server: one store, one recall index)', () => {
  it('the recall index drops a forgotten memory and takes it back after restore, through its public recall', async () => {
    const h = exampleHomeCopy();
    cleanup.push(h.dispose);
    const mind = createMind({ home: h.dir });
    const index = openRecallIndex(mind);
    cleanup.push(
      () => index.close(),
      () => mind.close(),
    );
    const names = () => index.recall('force push release branches', { k: 10 }).results.map((r) => r.name);
    const file = join(h.dir, 'memory', 'caution_force_push.md');
    const bytes = readFileSync(file);
    const memoryIndex = readFileSync(join(h.dir, 'memory', 'MEMORY.md'));
    expect(names()).toContain('Force push caution');
    const forgot = await forgetMemory(h.dir, 'force push caution', { store: mind.memory });
    expect(forgot).toMatchObject({ file: 'caution_force_push.md', index_line_removed: true });
    expect(names()).not.toContain('Force push caution');
    expect(mind.memory.snapshot().entries.map((e) => e.file)).not.toContain('caution_force_push.md');
    expect(listForgotten(h.dir)[0]).toMatchObject({
      file: 'caution_force_push.md',
      index_line: '- [Force push caution](caution_force_push.md) - never force-push main or release branches',
    });
    await restoreMemory(h.dir, 'caution_force_push', { store: mind.memory });
    expect(readFileSync(file)).toEqual(bytes);
    expect(readFileSync(join(h.dir, 'memory', 'MEMORY.md'))).toEqual(memoryIndex);
    expect(names()).toContain('Force push caution');
    expect(listForgotten(h.dir)).toEqual([]);
  });

  it('restores a memory that had no index line without adding one', async () => {
    const h = exampleHomeCopy();
    cleanup.push(h.dispose);
    const memoryIndex = readFileSync(join(h.dir, 'memory', 'MEMORY.md'));
    expect(memoryIndex.toString()).not.toContain('running_commitments.md');
    const forgot = await forgetMemory(h.dir, 'Running commitments');
    expect(forgot.index_line_removed).toBe(false);
    const restored = await restoreMemory(h.dir, 'running commitments');
    expect(restored.index_line_restored).toBe(false);
    expect(readFileSync(join(h.dir, 'memory', 'MEMORY.md'))).toEqual(memoryIndex);
  });
});
