import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendLine, readTailLines } from '../../../src/core/index.js';
import { tempDir } from '../../helpers/index.js';

describe('append-only line logs', () => {
  const temps: (() => void)[] = [];
  const dir = () => {
    const t = tempDir('firstlight-log-');
    temps.push(t.dispose);
    return t.dir;
  };
  afterEach(() => {
    for (const dispose of temps.splice(0)) dispose();
  });

  it('appends whole lines, creating the directory', () => {
    const file = join(dir(), 'nested', 'log.jsonl');
    appendLine(file, '{"n":1}');
    appendLine(file, '{"n":2}');
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n{"n":2}\n');
  });

  it('reads the whole lines of the tail, dropping the one the window cuts', () => {
    const file = join(dir(), 'log.jsonl');
    writeFileSync(file, 'first line\nsecond\n\nthird\n');
    expect(readTailLines(file, 1000)).toEqual({ lines: ['first line', 'second', 'third'], size: 25 });
    expect(readTailLines(file, 14)).toEqual({ lines: ['second', 'third'], size: 25 });
  });

  it('takes a missing file as absent and throws any other read error', () => {
    const root = dir();
    expect(readTailLines(join(root, 'none.jsonl'), 100)).toBeUndefined();
    mkdirSync(join(root, 'dir.jsonl'));
    expect(() => readTailLines(join(root, 'dir.jsonl'), 100)).toThrow(/EISDIR/);
  });
});
