import { describe, expect, it } from 'vitest';
import {
  checkCapabilityName,
  pythonNamesFor,
  splitCommandLine,
  toPythonIdentifier,
} from '../../../src/repl/index.js';

describe('toPythonIdentifier', () => {
  it('turns MCP tool names into Python identifiers', () => {
    expect(toPythonIdentifier('get-sum')).toBe('get_sum');
    expect(toPythonIdentifier('read_text_file')).toBe('read_text_file');
    expect(toPythonIdentifier('3d-render')).toBe('t_3d_render');
    expect(toPythonIdentifier('import')).toBe('import_');
    expect(toPythonIdentifier('describe')).toBe('describe_');
    expect(toPythonIdentifier('_private')).toBe('private');
    expect(toPythonIdentifier('a.b/c')).toBe('a_b_c');
    expect(toPythonIdentifier('---')).toBe('tool');
  });

  it('keeps names unique after sanitising', () => {
    expect(pythonNamesFor(['get-sum', 'get_sum', 'get.sum']).map((n) => n.pyname)).toEqual([
      'get_sum',
      'get_sum_2',
      'get_sum_3',
    ]);
  });
});

describe('checkCapabilityName', () => {
  it('accepts identifiers and refuses the rest with a hint', () => {
    expect(() => checkCapabilityName('fs')).not.toThrow();
    for (const bad of ['my-fs', '1fs', '_fs', 'class', '']) {
      expect(() => checkCapabilityName(bad), bad).toThrow(/not usable as a Python variable/);
    }
  });
});

describe('splitCommandLine', () => {
  it('splits like a shell without expanding anything', () => {
    expect(splitCommandLine('npx pkg --root /a/b')).toEqual(['npx', 'pkg', '--root', '/a/b']);
    expect(splitCommandLine(`run "two words" 'single $HOME' a\\ b ""`)).toEqual([
      'run',
      'two words',
      'single $HOME',
      'a b',
      '',
    ]);
  });

  it('refuses an unbalanced quote', () => {
    expect(() => splitCommandLine('run "open')).toThrow(/unbalanced/);
  });
});
