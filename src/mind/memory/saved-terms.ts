import SearchableMap from 'minisearch/SearchableMap';

/** Query terms this long also match longer index terms that start with them. */
export const PREFIX_MIN = 5;
/** Query terms this long also match index terms within FUZZY × length edits. */
export const FUZZY_MIN = 7;
export const FUZZY = 0.15;

/**
 * The terms of a saved index used without loading it (SavedIndexView), and which of them a
 * search can visit: the exact terms, their prefix extensions and fuzzy neighbours, by
 * MiniSearch's own rules. A one-shot recall scans them (~10 ms at 10,000 memories); a process that keeps
 * searching puts them in a trie (~45 ms once), as MiniSearch does its index.
 */
export class SavedTerms {
  private readonly terms: Set<string>;
  private trie: SearchableMap<true> | undefined;
  private scans = 0;

  constructor(terms: Iterable<string> = []) {
    this.terms = new Set(terms);
  }

  /** The saved terms a search for `terms` can visit. */
  reachable(terms: string[]): Set<string> {
    const found = new Set<string>();
    if (this.terms.size === 0 || terms.length === 0) return found;
    if (!this.trie && ++this.scans > 2) {
      this.trie = new SearchableMap<true>();
      for (const term of this.terms) this.trie.set(term, true);
    }
    for (const t of terms) {
      if (this.terms.has(t)) found.add(t);
      const prefix = t.length >= PREFIX_MIN;
      const max = t.length >= FUZZY_MIN ? fuzzyDistance(t) : 0;
      if (this.trie) {
        if (prefix) for (const term of this.trie.atPrefix(t).keys()) found.add(term);
        if (max > 0) for (const term of this.trie.fuzzyGet(t, max).keys()) found.add(term);
      } else if (prefix || max > 0) {
        for (const term of this.terms) {
          if ((prefix && term.startsWith(t)) || (max > 0 && editDistanceWithin(t, term, max) <= max))
            found.add(term);
        }
      }
    }
    return found;
  }
}

/** MiniSearch's own rule: distance = round(length × fuzzy), capped by maxFuzzy (6). */
function fuzzyDistance(term: string): number {
  return Math.min(6, Math.round(term.length * FUZZY));
}

/** Levenshtein distance, giving up (returning max + 1) once it must exceed `max`. */
function editDistanceWithin(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const v = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      row.push(v);
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    prev = row;
  }
  return prev[b.length] as number;
}
