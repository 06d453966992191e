import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { contentTerms } from '../../../src/core/index.js';
import { FUZZY, FUZZY_MIN, PREFIX_MIN, SavedTerms } from '../../../src/mind/memory/saved-terms.js';
import { expansionsOf, SYNONYM_GROUPS } from '../../../src/mind/memory/synonyms.js';

/** The textbook Levenshtein distance, the whole table. */
function levenshtein(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
    }
  }
  return d[a.length]![b.length]!;
}

/** Seeded words over a small alphabet, so near neighbours are common. */
function words(n: number, seed: number): string[] {
  let x = seed;
  const next = () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x;
  };
  return Array.from({ length: n }, () => {
    const length = 3 + (next() % 14);
    return Array.from({ length }, () => 'abcde'[next() % 5]).join('');
  });
}

describe('saved terms', () => {
  it('reaches exactly the terms a MiniSearch prefix and fuzzy search may visit, by scan and by trie alike', () => {
    const vocabulary = [...new Set(words(3000, 11))];
    const mini = new MiniSearch<{ id: number; text: string }>({ fields: ['text'] });
    mini.addAll(vocabulary.map((text, id) => ({ id, text })));
    const options = {
      prefix: (t: string) => t.length >= 5,
      fuzzy: (t: string) => (t.length >= 7 ? FUZZY : false),
    };
    const sorted = new Set([...vocabulary].sort());
    // A fresh instance scans; one that has searched twice has built its trie.
    const kept = new SavedTerms(sorted);
    let neighbours = 0;
    // Words of the vocabulary with a character changed, dropped or doubled, and unrelated words.
    const edited = vocabulary.slice(0, 60).map((word, i) => {
      const at = i % word.length;
      if (i % 3 === 0) return `${word.slice(0, at)}e${word.slice(at + 1)}`;
      if (i % 3 === 1) return word.slice(0, at) + word.slice(at + 1);
      return word.slice(0, at) + word[at] + word.slice(at);
    });
    for (const query of [...edited, ...words(30, 3)]) {
      // The terms MiniSearch matched: each result's `terms`.
      const visited = new Set(mini.search(query, options).flatMap((r) => r.terms));
      const scanned = new SavedTerms(sorted).reachable([query]);
      // Exactly the terms MiniSearch's rules allow, by the whole edit-distance table.
      const max = Math.min(6, Math.round(query.length * FUZZY));
      const allowed = vocabulary.filter(
        (term) =>
          term === query ||
          (query.length >= PREFIX_MIN && term.startsWith(query)) ||
          (query.length >= FUZZY_MIN && levenshtein(query, term) <= max),
      );
      expect([...scanned].sort()).toEqual(allowed.sort());
      neighbours += allowed.filter((term) => term !== query && !term.startsWith(query)).length;
      expect([...kept.reachable([query])].sort()).toEqual(allowed.sort());
      for (const term of visited) expect(scanned.has(term), `${query} reaches ${term}`).toBe(true);
    }
    // The vocabulary is dense enough that fuzzy neighbours were found, not only exact terms.
    expect(neighbours).toBeGreaterThan(20);
  });
});

describe('query expansion', () => {
  it('expands each term as the whole table built at once would', () => {
    // The table as it was built at load: every member analysed, each one's group-mates.
    const table = new Map<string, Set<string>>();
    for (const group of SYNONYM_GROUPS) {
      const members = group.split(' ').map((w) => contentTerms(w.replace(/-/g, ' ')).join(' '));
      for (const m of members) {
        const set = table.get(m) ?? new Set<string>();
        for (const other of members) if (other !== m) set.add(other);
        table.set(m, set);
      }
    }
    const eager = (terms: string[]) => {
      const have = new Set(terms);
      const extra = new Set<string>();
      for (const t of have) for (const e of table.get(t) ?? []) if (!have.has(e)) extra.add(e);
      return [...extra].join(' ');
    };
    const terms = [...table.keys()].filter((t) => t !== '' && !t.includes(' '));
    expect(terms.length).toBeGreaterThan(50);
    for (const t of terms) expect(expansionsOf([t]), t).toBe(eager([t]));
    for (let i = 0; i + 2 < terms.length; i += 3) {
      const query = [terms[i]!, terms[i + 2]!, 'unrelated'];
      expect(expansionsOf(query), query.join(' ')).toBe(eager(query));
    }
    expect(expansionsOf(['ship'])).toContain('deploy');
  });

  it('expands a phrase where its words stand together, and an abbreviation to its words (issue 39)', () => {
    const pull = contentTerms('pull request length');
    expect(expansionsOf(pull).split(' ')).toContain('pr');
    // The phrase's words apart are not the phrase.
    expect(expansionsOf(contentTerms('request to pull the branch')).split(' ')).not.toContain('pr');
    expect(expansionsOf(contentTerms('PRs'))).toContain('pull request');
    for (const [short, long] of [
      ['k8s', 'kubernetes'],
      ['env', 'environment'],
      ['repo', 'repository'],
      ['db', 'database'],
      ['ci', 'continuous integration'],
      ['config', 'configuration'],
      ['deps', 'dependency'],
    ] as const) {
      const longTerms = contentTerms(long).join(' ');
      expect(expansionsOf(contentTerms(short)).split(' ').join(' '), short).toContain(longTerms);
      expect(expansionsOf(contentTerms(long)).split(' '), long).toContain(contentTerms(short)[0]);
    }
    // What the query already holds is not searched again.
    expect(expansionsOf(contentTerms('pr pull request'))).not.toContain('pull request');
  });
});
