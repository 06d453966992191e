import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendLine, readTailLines, TailFollower } from '../../../src/core/index.js';
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

  describe('a followed tail', () => {
    /** A follower of `file` that counts the lines it parses. */
    const follow = (file: string, maxLines = 100) => {
      const parsed: string[] = [];
      const follower = new TailFollower(file, {
        maxBytes: 1000,
        maxLines,
        parse: (line) => {
          parsed.push(line);
          return line.toUpperCase();
        },
      });
      return { follower, parsed };
    };

    it('parses a line once: an unchanged file costs a stat, an appended one its new lines', () => {
      const file = join(dir(), 'log.jsonl');
      const { follower, parsed } = follow(file);
      expect(follower.read()).toBeUndefined();
      writeFileSync(file, 'a\nb\n');
      const first = follower.read();
      expect(first).toEqual({ items: ['A', 'B'], size: 4 });
      expect(follower.read()).toBe(first);
      appendLine(file, 'c');
      appendLine(file, 'd');
      expect(follower.read()).toEqual({ items: ['A', 'B', 'C', 'D'], size: 8 });
      expect(parsed).toEqual(['a', 'b', 'c', 'd']);
    });

    it('keeps the last maxLines lines', () => {
      const file = join(dir(), 'log.jsonl');
      const { follower } = follow(file, 2);
      writeFileSync(file, 'a\nb\nc\n');
      expect(follower.read()?.items).toEqual(['B', 'C']);
      appendLine(file, 'd');
      expect(follower.read()?.items).toEqual(['C', 'D']);
    });

    it('reads afresh a file rewritten in place, replaced, or shortened', () => {
      const root = dir();
      const file = join(root, 'log.jsonl');
      const { follower } = follow(file);
      writeFileSync(file, 'a\nb\n');
      follower.read();
      // Same inode, longer, but the lines read before are gone: not an append.
      writeFileSync(file, 'x\ny\nz\n');
      expect(follower.read()?.items).toEqual(['X', 'Y', 'Z']);
      writeFileSync(join(root, 'next'), 'n\n');
      renameSync(join(root, 'next'), file);
      expect(follower.read()?.items).toEqual(['N']);
      writeFileSync(file, '');
      expect(follower.read()).toEqual({ items: [], size: 0 });
    });

    it('reads a partial last line as a line, and afresh once the file grows', () => {
      const file = join(dir(), 'log.jsonl');
      const { follower } = follow(file);
      writeFileSync(file, 'a\nhal');
      expect(follower.read()?.items).toEqual(['A', 'HAL']);
      appendFileSync(file, 'f\n');
      expect(follower.read()?.items).toEqual(['A', 'HALF']);
    });

    it('takes its own append in without reading, and reads when another writer came between', () => {
      const file = join(dir(), 'log.jsonl');
      const { follower, parsed } = follow(file);
      follower.append('a');
      expect(follower.read()).toEqual({ items: ['A'], size: 2 });
      appendLine(file, 'other');
      follower.append('b');
      expect(follower.read()?.items).toEqual(['A', 'OTHER', 'B']);
      expect(readFileSync(file, 'utf8')).toBe('a\nother\nb\n');
      follower.append('c');
      expect(follower.read()?.items).toEqual(['A', 'OTHER', 'B', 'C']);
      // Its own a; b's append saw the file had grown by more than b, so a fresh read parsed all
      // three; then c, taken in at its append and not read back.
      expect(parsed).toEqual(['a', 'a', 'other', 'b', 'c']);
    });
  });
});
