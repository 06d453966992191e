import SearchableMap from 'minisearch/SearchableMap';

/** Query terms this long also match longer index terms that start with them. */
export const PREFIX_MIN = 5;
/** Query terms this long also match index terms within FUZZY × length edits. */
export const FUZZY_MIN = 7;
export const FUZZY = 0.15;

/** Terms by position: an array, or a TabList. */
export interface IndexedTerms {
  readonly length: number;
  at(i: number): string | undefined;
  /** Whether term i starts with `prefix`, when the list can say so without slicing the term out. */
  startsWith?(i: number, prefix: string): boolean;
}

/** The saved terms as SavedLines holds them: in the snapshot's (sorted) order. */
export interface TermSet {
  has(term: string): boolean;
  keys(): Iterable<string>;
  readonly size: number;
  /** The terms already sorted, when the set has them so (no copy to make). */
  sortedTerms?(): IndexedTerms | undefined;
}

/**
 * The terms of a saved index used without loading it (SavedIndexView), and which of them a
 * search can visit: the exact terms, their prefix extensions and fuzzy neighbours, by
 * MiniSearch's own rules. A one-shot recall searches the sorted terms as a trie (prefixes by
 * bisection, fuzzy neighbours sharing the rows of their common prefixes: a few ms at 10,000
 * memories); a process that keeps searching builds a trie (~45 ms once), as MiniSearch does its index.
 */
export class SavedTerms {
  private readonly terms: TermSet;
  private sorted: IndexedTerms | undefined;
  private trie: SearchableMap<true> | undefined;
  private scans = 0;

  constructor(terms: TermSet = new Set<string>()) {
    this.terms = terms;
  }

  /** The saved terms a search for `terms` can visit. */
  reachable(terms: string[]): Set<string> {
    const found = new Set<string>();
    if (this.terms.size === 0 || terms.length === 0) return found;
    if (!this.trie && ++this.scans > 2) {
      this.trie = new SearchableMap<true>();
      for (const term of this.terms.keys()) this.trie.set(term, true);
    }
    for (const t of terms) {
      if (this.terms.has(t)) found.add(t);
      const prefix = t.length >= PREFIX_MIN;
      const max = t.length >= FUZZY_MIN ? fuzzyDistance(t) : 0;
      if (this.trie) {
        if (prefix) for (const term of this.trie.atPrefix(t).keys()) found.add(term);
        if (max > 0) for (const term of this.trie.fuzzyGet(t, max).keys()) found.add(term);
        continue;
      }
      if (prefix) this.addPrefixed(t, found);
      if (max > 0) this.addNear(t, max, found);
    }
    return found;
  }

  private sortedTerms(): IndexedTerms {
    this.sorted ??= this.terms.sortedTerms?.();
    if (!this.sorted) {
      const sorted = [...this.terms.keys()];
      for (let i = 1; i < sorted.length; i++) {
        if (sorted[i - 1]! > sorted[i]!) {
          sorted.sort();
          break;
        }
      }
      this.sorted = sorted;
    }
    return this.sorted;
  }

  /** Terms that start with `t`: a run of the sorted terms, found by bisection. */
  private addPrefixed(t: string, found: Set<string>): void {
    const sorted = this.sortedTerms();
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted.at(mid)! < t) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < sorted.length; i++) {
      const term = sorted.at(i)!;
      if (!term.startsWith(t)) break;
      found.add(term);
    }
  }

  /**
   * Terms within `max` edits of `t`, found as a trie search would, on the sorted terms: terms
   * that share a prefix share the edit-distance rows of that prefix (computed once), and once
   * a prefix's row exceeds `max` every term under it is passed over with one bisection.
   */
  private addNear(t: string, max: number, found: Set<string>): void {
    const sorted = this.sortedTerms();
    const n = t.length;
    // rows[d]: the edit distances between the current term's first d characters and each prefix of t.
    const big = max + 1;
    const rows: Int32Array[] = [Int32Array.from({ length: n + 2 }, (_, j) => Math.min(j, big))];
    let previous = '';
    let i = 0;
    while (i < sorted.length) {
      const term = sorted.at(i)!;
      let depth = commonPrefix(previous, term);
      previous = term;
      let pruned = false;
      while (depth < term.length) {
        const above = rows[depth]!;
        if (rows.length <= depth + 1) rows.push(new Int32Array(n + 2));
        const row = rows[depth + 1]!;
        // Only cells within max of the diagonal can stay within max: the band, and a cell of
        // `big` on each side of it for the next row to read.
        const r = depth + 1;
        const from = Math.max(1, r - max);
        const to = Math.min(n, r + max);
        row[from - 1] = from === 1 ? Math.min(r, big) : big;
        row[to + 1] = big;
        let best = row[from - 1]!;
        const c = term.charCodeAt(depth);
        for (let j = from; j <= to; j++) {
          let v = above[j - 1]! + (t.charCodeAt(j - 1) === c ? 0 : 1);
          if (above[j]! + 1 < v) v = above[j]! + 1;
          if (row[j - 1]! + 1 < v) v = row[j - 1]! + 1;
          if (v > big) v = big;
          row[j] = v;
          if (v < best) best = v;
        }
        depth++;
        if (best > max) {
          pruned = true;
          break;
        }
      }
      if (!pruned) {
        // Row `term.length` holds column n only when the lengths differ by at most max.
        if (Math.abs(term.length - n) <= max && rows[term.length]![n]! <= max) found.add(term);
        i++;
        continue;
      }
      // No term that starts with these `depth` characters can come within max.
      const prefix = term.slice(0, depth);
      const startsWith = sorted.startsWith
        ? (k: number) => sorted.startsWith!(k, prefix)
        : (k: number) => sorted.at(k)!.startsWith(prefix);
      let lo = i + 1;
      let hi = sorted.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (startsWith(mid)) lo = mid + 1;
        else hi = mid;
      }
      i = lo;
    }
  }
}

/** How many leading characters two strings share. */
function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** MiniSearch's own rule: distance = round(length × fuzzy), capped by maxFuzzy (6). */
function fuzzyDistance(term: string): number {
  return Math.min(6, Math.round(term.length * FUZZY));
}
