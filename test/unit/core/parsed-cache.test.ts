import { existsSync, mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  cachedParse,
  isJsonExact,
  loadSettings,
  loadSettingsCached,
  PARSED_RACY_MS,
  parsedCacheFile,
} from '../../../src/core/index.js';
import { tempDir } from '../../helpers/index.js';

/** A parser that counts its calls: a hit must not call it. */
function counting<T>(parse: (file: string) => T) {
  const calls: string[] = [];
  return {
    calls,
    parse: (file: string) => {
      calls.push(file);
      return parse(file);
    },
  };
}

const readOrMissing = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '(missing)');

/** Dates a file's mtime back (its ctime becomes now: the clock is moved past the racy window). */
function writeOld(file: string, text: string, secondsAgo = 60): number {
  writeFileSync(file, text);
  // Whole seconds: the stamp set back later is then exactly the same number.
  const when = Math.floor(Date.now() / 1000) - secondsAgo;
  utimesSync(file, when, when);
  return when;
}

describe('cachedParse (the parsed-file cache under a home’s cache/)', () => {
  const t = tempDir('firstlight-parsed-cache-');
  afterAll(() => t.dispose());
  let dir: string;
  let cacheDir: string;
  let n = 0;
  beforeEach(() => {
    dir = join(t.dir, `case-${n++}`);
    cacheDir = join(dir, 'cache');
    mkdirSync(dir);
    vi.useFakeTimers({ toFake: ['Date'] });
    // Every write below is older than the racy window unless a test says otherwise.
    vi.setSystemTime(Date.now() + 10 * PARSED_RACY_MS);
  });
  afterEach(() => vi.useRealTimers());

  it('parses once, then answers from the cache file while the source is unchanged', () => {
    const file = join(dir, 'a.txt');
    writeOld(file, 'one');
    const p = counting(readOrMissing);
    const cache = parsedCacheFile(cacheDir, 'test');
    expect(cachedParse(file, cache, p.parse)).toBe('one');
    expect(cachedParse(file, cache, p.parse)).toBe('one');
    expect(p.calls).toEqual([file]);
    const stored = JSON.parse(readFileSync(cache, 'utf8'));
    expect(stored.entries[file].value).toBe('one');
  });

  it('re-parses after an edit, and after an edit of the same size dated back to the same mtime', () => {
    const file = join(dir, 'a.txt');
    writeOld(file, 'one');
    const p = counting(readOrMissing);
    const cache = parsedCacheFile(cacheDir, 'test');
    expect(cachedParse(file, cache, p.parse)).toBe('one');
    const when = writeOld(file, 'three');
    expect(cachedParse(file, cache, p.parse)).toBe('three');
    // Same size, same mtime (set back by hand): the ctime still moved.
    const { mtimeMs } = statSync(file);
    writeFileSync(file, 'seven');
    utimesSync(file, when, when);
    vi.setSystemTime(Date.now() + 10 * PARSED_RACY_MS);
    expect(statSync(file).mtimeMs).toBe(mtimeMs);
    expect(cachedParse(file, cache, p.parse)).toBe('seven');
    expect(p.calls).toHaveLength(3);
  });

  it('does not keep a value read within the racy window of the source’s last change', () => {
    const file = join(dir, 'a.txt');
    vi.useRealTimers();
    writeFileSync(file, 'fresh');
    const p = counting(readOrMissing);
    const cache = parsedCacheFile(cacheDir, 'test');
    expect(cachedParse(file, cache, p.parse)).toBe('fresh');
    // A same-size write in the same mtime tick could follow unseen: nothing was stored.
    expect(existsSync(cache)).toBe(false);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 10 * PARSED_RACY_MS);
    expect(cachedParse(file, cache, p.parse)).toBe('fresh');
    expect(cachedParse(file, cache, p.parse)).toBe('fresh');
    expect(p.calls).toHaveLength(2);
  });

  it('takes a corrupt or foreign cache file for a miss and writes a good one', () => {
    const file = join(dir, 'a.txt');
    writeOld(file, 'one');
    const cache = parsedCacheFile(cacheDir, 'test');
    const p = counting(readOrMissing);
    mkdirSync(cacheDir);
    for (const junk of ['{"format":1,"code":', 'null', '[]', '{"format":1,"code":"x","entries":{}}']) {
      writeFileSync(cache, junk);
      expect(cachedParse(file, cache, p.parse)).toBe('one');
    }
    expect(p.calls).toHaveLength(4);
    expect(cachedParse(file, cache, p.parse)).toBe('one');
    expect(p.calls).toHaveLength(4);
  });

  it('keys a missing source as missing: creating it, or deleting it again, re-parses', () => {
    const file = join(dir, 'a.txt');
    const cache = parsedCacheFile(cacheDir, 'test');
    const p = counting(readOrMissing);
    expect(cachedParse(file, cache, p.parse)).toBe('(missing)');
    expect(cachedParse(file, cache, p.parse)).toBe('(missing)');
    expect(p.calls).toHaveLength(1);
    writeOld(file, 'now here');
    expect(cachedParse(file, cache, p.parse)).toBe('now here');
    rmSync(file);
    expect(cachedParse(file, cache, p.parse)).toBe('(missing)');
    expect(p.calls).toHaveLength(3);
  });

  it('keeps sources apart by key in one cache file', () => {
    const [a, b] = [join(dir, 'a.txt'), join(dir, 'b.txt')];
    writeOld(a, 'A');
    writeOld(b, 'B');
    const cache = parsedCacheFile(cacheDir, 'test');
    const p = counting(readOrMissing);
    expect(cachedParse(a, cache, p.parse)).toBe('A');
    expect(cachedParse(b, cache, p.parse)).toBe('B');
    expect(cachedParse(a, cache, (f) => `upper:${p.parse(f)}`, 'other-key')).toBe('upper:A');
    expect(cachedParse(a, cache, p.parse)).toBe('A');
    expect(cachedParse(b, cache, p.parse)).toBe('B');
    expect(cachedParse(a, cache, (f) => `upper:${p.parse(f)}`, 'other-key')).toBe('upper:A');
    expect(p.calls).toHaveLength(3);
  });

  it('returns but does not store what JSON cannot carry exactly', () => {
    const file = join(dir, 'a.txt');
    writeOld(file, 'x');
    const cache = parsedCacheFile(cacheDir, 'test');
    let calls = 0;
    const parse = () => {
      calls++;
      return { limit: Number.POSITIVE_INFINITY };
    };
    expect(cachedParse(file, cache, parse)).toEqual({ limit: Number.POSITIVE_INFINITY });
    expect(cachedParse(file, cache, parse)).toEqual({ limit: Number.POSITIVE_INFINITY });
    expect(calls).toBe(2);
    expect(isJsonExact({ a: [1, 'b', null, { c: true }] })).toBe(true);
    const sparse: unknown[] = [1];
    sparse[2] = 2;
    for (const bad of [undefined, Number.NaN, -0, new Date(0), new Map(), sparse, { a: undefined }, () => 0])
      expect(isJsonExact(bad), String(bad)).toBe(false);
  });

  it('does not create the cache directory of a home that does not exist', () => {
    const home = join(dir, 'no-home');
    const file = join(home, 'firstlight.yaml');
    expect(loadSettingsCached(file, join(home, 'cache'))).toEqual(loadSettings(file));
    expect(existsSync(home)).toBe(false);
  });
});

describe('loadSettingsCached', () => {
  const t = tempDir('firstlight-settings-cached-');
  afterAll(() => t.dispose());
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 10 * PARSED_RACY_MS);
  });
  afterEach(() => vi.useRealTimers());

  it('gives what loadSettings gives, problems and all, from the parse and from the cache', () => {
    const file = join(t.dir, 'firstlight.yaml');
    const cacheDir = join(t.dir, 'cache');
    const texts = [
      undefined,
      'packet:\n  markdown_max_chars: 2000\n',
      'packet:\n  markdown_max_chars: 50\ncolour: blue\nresumption:\n  frobs: 2\n',
      'packet: [unclosed\n',
      '- a list\n',
      'repl:\n  timeout_s: .inf\n',
      'redact:\n  patterns:\n    - kind: BAD KIND\n      regex: "x"\n',
    ];
    for (const text of texts) {
      if (text === undefined) rmSync(file, { force: true });
      else writeOld(file, text);
      const expected = loadSettings(file);
      expect(loadSettingsCached(file, cacheDir), text).toEqual(expected);
      expect(loadSettingsCached(file, cacheDir), text).toEqual(expected);
    }
    expect(loadSettings(file).problems.length).toBeGreaterThan(0);
  });

  it('sees a same-size edit within the same mtime (2000 → 3000)', () => {
    const file = join(t.dir, 'same-size.yaml');
    const cacheDir = join(t.dir, 'cache');
    const when = writeOld(file, 'packet:\n  markdown_max_chars: 2000\n');
    const { mtimeMs, size } = statSync(file);
    expect(loadSettingsCached(file, cacheDir).settings.packet.markdown_max_chars).toBe(2000);
    writeFileSync(file, 'packet:\n  markdown_max_chars: 3000\n');
    utimesSync(file, when, when);
    expect(statSync(file)).toMatchObject({ mtimeMs, size });
    vi.setSystemTime(Date.now() + 10 * PARSED_RACY_MS);
    expect(loadSettingsCached(file, cacheDir).settings.packet.markdown_max_chars).toBe(3000);
  });
});
