import { describe, expect, it } from 'vitest';
import { cellComplete } from '../../../src/cli/terminal/index.js';

describe('when a typed cell is complete (as Python’s REPL decides)', () => {
  it('runs a simple statement or expression at once', () => {
    expect(cellComplete(['x = 1'])).toBe(true);
    expect(cellComplete(['print("a: b")'])).toBe(true);
    expect(cellComplete(['d[1:]'])).toBe(true);
    expect(cellComplete(['while True: pass'])).toBe(true);
    expect(cellComplete([''])).toBe(true);
  });

  it('continues an open bracket, a triple-quoted string or a backslash', () => {
    expect(cellComplete(['x = (1,'])).toBe(false);
    expect(cellComplete(['x = (1,', '2)'])).toBe(true);
    expect(cellComplete(['d = {', "  'a':", '  1}'])).toBe(true);
    expect(cellComplete(['s = """one'])).toBe(false);
    expect(cellComplete(['s = """one', 'two"""'])).toBe(true);
    expect(cellComplete(['x = 1 + \\'])).toBe(false);
    expect(cellComplete(['x = "(" # ('])).toBe(true);
  });

  it('waits for an empty line after a compound statement or a decorator', () => {
    expect(cellComplete(['def double(x):'])).toBe(false);
    expect(cellComplete(['def double(x):', '    return 2 * x'])).toBe(false);
    expect(cellComplete(['def double(x):', '    return 2 * x', ''])).toBe(true);
    expect(cellComplete(['@cache'])).toBe(false);
    expect(cellComplete(['for i in range(3):  # loop', '    print(i)', ''])).toBe(true);
    expect(cellComplete(['if x:', '    y = {', "        'k': 1,", '    }', ''])).toBe(true);
  });
});
