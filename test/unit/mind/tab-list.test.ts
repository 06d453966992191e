import { describe, expect, it } from 'vitest';
import { TabList } from '../../../src/mind/memory/tab-list.js';

describe('TabList', () => {
  it('holds sorted words as one string: items, bisection, prefixes, past the first buffer', () => {
    const words = Array.from({ length: 3000 }, (_, i) => `w${String(i).padStart(4, '0')}`).sort();
    const list = new TabList(TabList.join(words));
    expect(list.length).toBe(3000);
    expect([...list]).toEqual(words);
    expect(list.at(2999)).toBe(words[2999]);
    expect(list.at(3000)).toBeUndefined();
    for (const [i, w] of [
      [0, words[0]!],
      [1234, words[1234]!],
    ] as const)
      expect(list.indexOf(w)).toBe(i);
    expect(list.indexOf('w9999x')).toBe(-1);
    expect(list.startsWith(1234, 'w12')).toBe(true);
    expect(list.startsWith(1234, 'w13')).toBe(false);
    expect(list.startsWith(0, `${words[0]}x`)).toBe(false); // longer than the item
    expect(new TabList('').length).toBe(0);
    expect(new TabList('').indexOf('a')).toBe(-1);
  });

  it('holds names that need escaping, each a JSON string', () => {
    const names = ['a "quoted".md', 'plain.md', 'tab\there.md', 'ünïcode.md'].sort();
    const list = new TabList(
      TabList.join(names, (n) => JSON.stringify(n)),
      (text) => JSON.parse(text) as string,
    );
    expect([...list]).toEqual(names);
    for (const [i, n] of names.entries()) expect(list.indexOf(n)).toBe(i);
  });
});
