import { join } from 'node:path';
import type { SearchOptions, SearchResult } from 'minisearch';
import {
  contentTerms,
  mayBeAnyOf,
  normalizeTerm,
  termInitials,
  tokenize,
  UserError,
} from '../../core/index.js';
import {
  type DateRange,
  dateOf,
  dateRangeOf,
  inRange,
  inWindow,
  type TimeWindow,
  withoutTime,
} from './dates.js';
import { type MemoryProblem, readMemoryText } from './entries.js';
import { excerptAround } from './excerpt.js';
import { type Facet, matchesFacet, parseFacet } from './facet.js';
import { bodyOf } from './fast-frontmatter.js';
import type { EntryLookup } from './live-index.js';
import { FUZZY, FUZZY_MIN, PREFIX_MIN } from './saved-terms.js';
import { inScope, type MemoryScope, projectOf } from './scope.js';
import { EXPANSION_WEIGHT, expansionsOf } from './synonyms.js';

/** One recall result. `match` is the share of the query's distinct terms the memory contains. */
export interface RecallHit {
  name: string;
  type: string;
  score: number;
  excerpt: string;
  /** File name in memory/ (for read_memory_file). */
  file: string;
  match: number;
  /** The project id the memory belongs to; null for a global memory (and an event). */
  project: string | null;
  /** Where it came from: set when the recall searched the events (source events or all). */
  source?: 'memory' | 'events';
  /** An event's session, host (null: the agent's own observe/reflect), time and id (see EventHitFields). */
  session?: string | null;
  host?: string | null;
  time?: string;
  event?: string | null;
}

/** What a recall searches: memories (the default), the events of past sessions, or both. */
export const RECALL_SOURCES = ['memory', 'events', 'all'] as const;
export type RecallSourceName = (typeof RECALL_SOURCES)[number];

export interface RecallResult {
  query: string;
  results: RecallHit[];
  /** Memories that exist but are not searchable (bad YAML, binary, too large), with the reason. */
  skipped: MemoryProblem[];
  /** Searchable memories. */
  indexed: number;
  /** Searchable events, when the recall searched them. */
  events_indexed?: number;
}

export interface RecallOptions {
  k?: number;
  /** `key:value`: a frontmatter field (`type:feedback`, `relationship:bob`) or a tag. */
  facet?: string;
  /**
   * Whose memories: a project's and the global ones, the global ones only (null), or every
   * project's ('all', the default for a caller that names none).
   */
  scope?: MemoryScope;
  /** Memories (the default), the events of past sessions, or both (RecallIndex; a trusted one-shot view has memories only). */
  source?: RecallSourceName;
  /** Only what is about this time or later (a memory's date; an event's time). */
  since?: Date | undefined;
  /** Only what is about this time or earlier. */
  until?: Date | undefined;
}

/** Field weights: a word in a memory's name or description says more than one in its body. */
export const FIELD_BOOST = { name: 3, description: 2, tags: 2, body: 1, when: 1 } as const;
/** Memories marked superseded still match, at half weight: stale facts should not outrank current ones. */
export const SUPERSEDED_FACTOR = 0.5;
/** `proposed`: captured in review mode and not yet accepted, so recalled below accepted memories. */
const STALE_STATUSES = new Set([
  'superseded',
  'stale',
  'obsolete',
  'outdated',
  'archived',
  'deprecated',
  'proposed',
]);
export const MAX_K = 50;
/**
 * `remember`'s similar memories: candidates taken from the index, the least similarity listed,
 * how many listed, and how much of the new memory's text queries the index. The floor was
 * measured on near-duplicate and merely related pairs (docs/memory.md): listing is advice, never
 * a merge, so it leans toward showing a related memory rather than hiding a rewrite.
 */
const SIMILAR_CANDIDATES = 8;
export const SIMILAR_FLOOR = 0.45;
const SIMILAR_K = 5;
const SIMILAR_QUERY_CHARS = 2000;
/** A memory about the time a query names gains this share of the best word score. */
const TIME_WEIGHT = 1;

/** What a RecallQuery searches: a LiveIndex, or a saved index a one-shot recall trusts (TrustedIndex). */
export interface RecallSource {
  /** Brings the index up to date (when it can); returns what is not searchable. */
  refresh(): MemoryProblem[];
  search(text: string, options: SearchOptions): SearchResult[];
  readonly entries: EntryLookup;
  readonly documentCount: number;
}

/**
 * BM25 recall over memory/ (name, description, tags, body) on a RecallSource: the ranking, the
 * facet and project filters, query expansion, time phrases and the excerpts.
 */
export class RecallQuery {
  protected readonly source: RecallSource;
  protected readonly memoryDir: string;
  private readonly expansion: boolean;

  constructor(source: RecallSource, memoryDir: string, expansion = true) {
    this.source = source;
    this.memoryDir = memoryDir;
    this.expansion = expansion;
  }

  /** Ranked memories for `query`, optionally filtered by a facet. */
  recall(query: string, options: RecallOptions = {}): RecallResult {
    const k = options.k ?? 5;
    if (!Number.isInteger(k) || k < 1 || k > MAX_K) {
      throw new UserError(`k must be an integer 1-${MAX_K}, not ${k}`, {
        code: 'INVALID_ARGUMENT',
        hint: `k: how many results; 5 is usual, at most ${MAX_K}`,
      });
    }
    const facet = options.facet ? parseFacet(options.facet) : undefined;
    const scope = options.scope === undefined ? 'all' : options.scope;
    const window =
      options.since || options.until ? { since: options.since, until: options.until } : undefined;
    const skipped = this.source.refresh();
    // A time phrase ("early October") selects by date, not by the word: memories that merely
    // mention October elsewhere should not outrank the digests of that week.
    const range = dateRangeOf(query);
    const words = range ? withoutTime(query) : query;
    const termList = contentTerms(words);
    const queryTerms = new Set(termList);
    const indexed = this.source.documentCount;
    if (queryTerms.size === 0 && !range) return { query, results: [], skipped, indexed };
    const search = {
      boost: { ...FIELD_BOOST },
      prefix: (term: string) => term.length >= PREFIX_MIN,
      fuzzy: (term: string) => (term.length >= FUZZY_MIN ? FUZZY : false),
      combineWith: 'OR',
      filter:
        facet || scope !== 'all' || window
          ? (r: SearchResult) => this.visible(r.id as string, facet, scope, window)
          : undefined,
      boostDocument: (id: unknown) => (this.isStale(id as string) ? SUPERSEDED_FACTOR : 1),
    } as const;
    const found = searchExpanded((t, o) => this.search(t, o), words, termList, search, this.expansion);
    const timed = range ? this.applyTime(range, found, facet, scope, window) : new Set<string>();
    // Equal scores in one order (see orderTies), so a server and a one-shot recall give the same list.
    orderTies(found, k);
    const results = found.slice(0, k).map((r) => this.hit(r, queryTerms, timed.has(r.id as string)));
    return { query, results, skipped, indexed };
  }

  /**
   * Existing memories like `text` (a new memory's name, description and body), best first, each
   * with a 0-1 similarity: the cosine of the two texts' term counts (stemmed, stop words out).
   * Candidates come from the index (BM25, exact terms only), so a call reads at most
   * SIMILAR_CANDIDATES files; only those at or above `floor` are returned.
   */
  similar(
    text: string,
    options: { exclude?: string; scope?: MemoryScope; k?: number; floor?: number } = {},
  ): { name: string; file: string; score: number }[] {
    const scope = options.scope === undefined ? 'all' : options.scope;
    const floor = options.floor ?? SIMILAR_FLOOR;
    const mine = termCounts(text);
    if (mine.size === 0) return [];
    this.source.refresh();
    const found = this.search(text.slice(0, SIMILAR_QUERY_CHARS), {
      boost: { ...FIELD_BOOST },
      prefix: false,
      fuzzy: false,
      combineWith: 'OR',
      filter: (r: SearchResult) => r.id !== options.exclude && this.visible(r.id as string, undefined, scope),
    });
    const out: { name: string; file: string; score: number }[] = [];
    for (const r of found.slice(0, SIMILAR_CANDIDATES)) {
      const entry = this.source.entries.get(r.id as string);
      if (!entry) continue;
      let body = '';
      try {
        body = bodyOf(readMemoryText(this.memoryDir, entry.file) ?? '');
      } catch {
        continue; // deleted since the refresh
      }
      const score = cosine(mine, termCounts(`${entry.name}\n${entry.description}\n${body}`));
      if (score >= floor)
        out.push({ name: entry.name, file: entry.file, score: Math.round(score * 100) / 100 });
    }
    return out.sort((a, b) => b.score - a.score).slice(0, options.k ?? SIMILAR_K);
  }

  private search(text: string, options: SearchOptions): SearchResult[] {
    return this.source.search(text, options);
  }

  private hit(r: SearchResult, queryTerms: Set<string>, timed: boolean): RecallHit {
    const entry = this.source.entries.get(r.id as string)!;
    const terms = new Set<string>([...queryTerms, ...r.terms]);
    let body = '';
    try {
      body = bodyOf(readMemoryText(this.memoryDir, entry.file) ?? '');
    } catch {
      // Deleted since the last refresh; the description still says what it was.
    }
    const source = body.trim() !== '' && hasAny(body, terms) ? body : entry.description || body;
    return {
      name: entry.name,
      type: entry.type,
      score: shown(r.score) / 1000,
      excerpt: excerptAround(source, terms),
      file: entry.file,
      project: projectOf(entry) ?? null,
      // A named time counts as one query term, met by memories about that time.
      match:
        Math.round(
          ((r.queryTerms.length + (timed ? 1 : 0)) / Math.max(1, queryTerms.size + (timed ? 1 : 0))) * 100,
        ) / 100,
    };
  }

  /**
   * A query that names a time ("early October", "October 22", "2026-12-08") ranks the memories
   * about that time first: those that matched words get TIME_WEIGHT, and dated memories in the
   * range that matched no word join the list below the best hit (a digest of that week may
   * share no word with the question).
   */
  private applyTime(
    range: DateRange,
    found: SearchResult[],
    facet: Facet | undefined,
    scope: MemoryScope,
    window: TimeWindow | undefined,
  ): Set<string> {
    const top = found[0]?.score ?? 1;
    const timed = new Set<string>();
    for (const r of found) {
      const day = this.dayOf(r.id as string);
      if (day && inRange(day, range)) {
        r.score += top * TIME_WEIGHT;
        timed.add(r.id as string);
      }
    }
    for (const [file] of this.source.entries) {
      if (timed.has(file) || !this.visible(file, facet, scope, window)) continue;
      const day = this.dayOf(file);
      if (!day || !inRange(day, range)) continue;
      found.push({ id: file, score: top * TIME_WEIGHT, terms: [], queryTerms: [], match: {} });
      timed.add(file);
    }
    found.sort((a, b) => b.score - a.score);
    return timed;
  }

  private dayOf(file: string): string | undefined {
    const entry = this.source.entries.get(file);
    return entry ? dateOf(entry) : undefined;
  }

  /** The facet and the project scope, on the entry the index holds for `file`. */
  private visible(file: string, facet: Facet | undefined, scope: MemoryScope, window?: TimeWindow): boolean {
    const entry = this.source.entries.get(file);
    if (entry === undefined) return false;
    if (window) {
      // A time filter keeps the memories about that time: an undated one is about no time.
      const day = dateOf(entry);
      if (!day || !inWindow(day, window)) return false;
    }
    return (!facet || matchesFacet(entry, facet)) && inScope(entry, scope);
  }

  private isStale(file: string): boolean {
    const entry = this.source.entries.get(file);
    if (!entry) return false;
    return STALE_STATUSES.has(entry.fields.status ?? '') || entry.fields.superseded_by !== undefined;
  }
}

/**
 * `words` searched, then the synonyms of `terms` (its analysed words, in order) at
 * EXPANSION_WEIGHT, merged best first: synonyms widen the net at a discount, so exact words keep
 * ranking first. Memories and events are searched so.
 */
export function searchExpanded(
  search: (text: string, options: SearchOptions) => SearchResult[],
  words: string,
  terms: readonly string[],
  options: SearchOptions,
  expand = true,
): SearchResult[] {
  const found = terms.length > 0 ? search(words, options) : [];
  const expansion = expand ? expansionsOf(terms) : '';
  if (!expansion) return found;
  const byId = new Map(found.map((r) => [r.id as string, r]));
  for (const r of search(expansion, options)) {
    const hit = byId.get(r.id as string);
    if (hit) hit.score += r.score * EXPANSION_WEIGHT;
    else byId.set(r.id as string, { ...r, score: r.score * EXPANSION_WEIGHT, queryTerms: [] });
  }
  return [...byId.values()].sort((a, b) => b.score - a.score);
}

/**
 * Orders results of the same score: those that contain more of the query's words first (a
 * memory that matched words above one that only falls in a named time, which scores the same),
 * then by file. The same score: equal but for the last bits of a float, which differ between a
 * server's index and a one-shot's view of the same saved index (MiniSearch sums the same figures
 * in another order there, and orders ties by its internal ids); a real difference, however
 * small, keeps MiniSearch's order. `found` is sorted by score, so equal scores are runs: only the
 * runs that start within the first k are sorted, not the whole list (a common word matches
 * thousands).
 */
export function orderTies(found: SearchResult[], k: number): void {
  for (let i = 0; i < found.length && i < k; ) {
    let j = i + 1;
    while (j < found.length && sameScore(found[j - 1]!.score, found[j]!.score)) j++;
    if (j - i > 1) {
      const run = found
        .slice(i, j)
        .sort(
          (a, b) => b.queryTerms.length - a.queryTerms.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
        );
      found.splice(i, run.length, ...run);
    }
    i = j;
  }
}

function sameScore(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
}

/** A score as a hit shows it. */
function shown(score: number): number {
  return Math.round(score * 1000);
}

/** Stemmed content terms of a text and how often each occurs. */
function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of contentTerms(text)) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/** The cosine of two term-count vectors: 1 for the same words in the same proportions, 0 for none shared. */
function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [term, n] of a) {
    na += n * n;
    const m = b.get(term);
    if (m !== undefined) dot += n * m;
  }
  for (const n of b.values()) nb += n * n;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

function hasAny(text: string, terms: ReadonlySet<string>): boolean {
  const initials = termInitials(terms);
  for (const token of tokenize(text)) {
    if (!mayBeAnyOf(token, initials)) continue;
    const term = normalizeTerm(token);
    if (term !== null && terms.has(term)) return true;
  }
  return false;
}
