import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, PathEscapeError } from '../../../src/core/index.js';
import { readMemoryFile } from '../../../src/mind/index.js';
import { tempDir } from '../../helpers/index.js';

describe('readMemoryFile', () => {
  const t = tempDir();
  const memory = join(t.dir, 'home', 'memory');
  beforeAll(() => {
    mkdirSync(memory, { recursive: true });
    writeFileSync(join(t.dir, 'home', 'firstlight.yaml'), 'secret: yes\n');
    writeFileSync(join(memory, 'note.md'), '---\nname: Note\ntype: note\n---\nHello');
    writeFileSync(join(t.dir, 'outside.md'), 'outside');
    symlinkSync(join(t.dir, 'outside.md'), join(memory, 'escape.md'));
    symlinkSync(join(memory, 'note.md'), join(memory, 'alias.md'));
  });
  afterAll(() => t.dispose());

  it('reads a memory by file name, with or without .md', () => {
    expect(readMemoryFile(memory, 'note.md')).toEqual({
      file: 'note.md',
      frontmatter: { name: 'Note', type: 'note' },
      body: 'Hello',
    });
    expect(readMemoryFile(memory, 'note').body).toBe('Hello');
  });

  it('refuses ../firstlight.yaml, absolute paths and symlinks leaving memory/', () => {
    expect(() => readMemoryFile(memory, '../firstlight.yaml')).toThrow(PathEscapeError);
    expect(() => readMemoryFile(memory, '../firstlight.yaml')).toThrow(/".." would leave memory\//);
    expect(() => readMemoryFile(memory, join(t.dir, 'outside.md'))).toThrow(/absolute paths are not allowed/);
    expect(() => readMemoryFile(memory, 'escape.md')).toThrow(/symlink whose target is outside memory\//);
  });

  it('allows a symlink that stays inside memory/', () => {
    expect(readMemoryFile(memory, 'alias.md').body).toBe('Hello');
  });

  it('says how to find names when a file does not exist', () => {
    expect(() => readMemoryFile(memory, 'nope.md')).toThrow(NotFoundError);
    try {
      readMemoryFile(memory, 'nope.md');
    } catch (error) {
      expect((error as NotFoundError).hint).toContain('list_memory_files');
    }
  });
});
