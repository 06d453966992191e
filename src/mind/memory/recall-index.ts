import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import MiniSearch, { type SearchResult } from 'minisearch';
import { UserError } from '../../core/index.js';
import { type DateRange, dateOf, dateRangeOf, inRange, whenWords, withoutTime } from './dates.js';
import { MAX_MEMORY_BYTES, type MemoryEntry, type MemoryProblem } from './entries.js';
import { excerptAround } from './excerpt.js';
import { type Facet, matchesFacet, parseFacet } from './facet.js';
import { bodyOf } from './fast-frontmatter.js';
import {
  editDistanceWithin,
  type ManifestRow,
  PersistedIndex,
  writePersistedIndex,
} from './persisted-index.js';
import type { MemorySnapshot, MemoryStore } from './store.js';
import { EXPANSION_WEIGHT, expansionsOf } from './synonyms.js';
import { contentTerms, normalizeTerm, tokenize } from './text.js';

/** One recall result. `match` is the share of the query's distinct terms the memory contains. */
export interface RecallHit {
  name: string;
  type: string;
  score: number;
  excerpt: string;
  /** File name in memory/ (for read_memory_file). */
  file: string;
  match: number;
}

export interface RecallResult {
  query: string;
  results: RecallHit[];
  /** Memories that exist but are not searchable (bad YAML, binary, too large), with the reason. */
  skipped: MemoryProblem[];
  /** Searchable memories. */
  indexed: number;
}

export interface RecallOptions {
  k?: number;
  /** `key:value`: a frontmatter field (`type:feedback`, `relationship:bob`) or a tag. */
  facet?: string;
}

/** Field weights: a word in a memory's name or description says more than one in its body. */
export const FIELD_BOOST = { name: 3, description: 2, tags: 2, body: 1, when: 1 } as const;
/** Memories marked superseded still match, at half weight: stale facts should not outrank current ones. */
export const SUPERSEDED_FACTOR = 0.5;
const STALE_STATUSES = new Set(['superseded', 'stale', 'obsolete', 'outdated', 'archived', 'deprecated']);
/** Bump when analysis (tokenizer, stemmer, fields) changes: an old persisted index is then ignored. */
const INDEX_FORMAT = 5;
/** Persisting a 10,000-memory index takes ~100 ms: coalesce bursts of changes. */
const PERSIST_EVERY_MS = 2_000;
export const MAX_K = 50;
/** A memory about the time a query names gains this share of the best word score. */
const TIME_WEIGHT = 1;
const PREFIX_MIN = 5;
const FUZZY_MIN = 7;
const FUZZY = 0.15;
/** MiniSearch's own rule: distance = round(length × fuzzy), capped by maxFuzzy (6). */
const fuzzyDistance = (term: string) => Math.min(6, Math.round(term.length * FUZZY));

interface IndexedDoc {
  id: string;
  name: string;
  description: string;
  tags: string;
  body: string;
  /** Month, year and day the memory is about (see dates.ts). */
  when: string;
}

const MINI_OPTIONS = {
  idField: 'id',
  fields: ['name', 'description', 'tags', 'body', 'when'],
  storeFields: [] as string[],
  tokenize,
  processTerm: (term: string) => normalizeTerm(term) ?? null,
};

/**
 * BM25 recall over memory/ (name, description, tags, body), derived from the MemoryStore's
 * snapshot and persisted under cache/. A call costs one stat of memory/ while nothing changed;
 * when something did, only files whose mtime or size moved are re-read and re-indexed, so
 * another process's `remember` is visible to the next `recall` without a rebuild.
 */
export class RecallIndex {
  private readonly store: MemoryStore;
  private readonly cacheFile: string | undefined;
  private mini: MiniSearch<IndexedDoc> | undefined;
  /** A saved index not yet loaded whole (see searchable()). */
  private lazy: PersistedIndex<IndexedDoc> | undefined;
  private recalls = 0;
  private manifest = new Map<string, { mtimeMs: number; size: number }>();
  private entries = new Map<string, MemoryEntry>();
  private bodyProblems = new Map<string, MemoryProblem>();
  private synced: MemorySnapshot | undefined;
  private lastPersist = 0;
  private persistTimer: NodeJS.Timeout | undefined;
  private unsaved = false;
  private filesRead = 0;

  constructor(store: MemoryStore, options: { cacheFile?: string } = {}) {
    this.store = store;
    this.cacheFile = options.cacheFile;
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
    const snapshot = this.refresh();
    this.recalls++;
    // A time phrase ("early October") selects by date, not by the word: memories that merely
    // mention October elsewhere should not outrank the digests of that week.
    const range = dateRangeOf(query);
    const words = range ? withoutTime(query) : query;
    const queryTerms = new Set(contentTerms(words));
    const skipped = [...snapshot.problems, ...this.bodyProblems.values()];
    const indexed = this.documentCount();
    if (queryTerms.size === 0 && !range) return { query, results: [], skipped, indexed };
    const search = {
      boost: { ...FIELD_BOOST },
      prefix: (term: string) => term.length >= PREFIX_MIN,
      fuzzy: (term: string) => (term.length >= FUZZY_MIN ? FUZZY : false),
      combineWith: 'OR',
      filter: facet ? (r: SearchResult) => this.facetMatches(r.id as string, facet) : undefined,
      boostDocument: (id: unknown) => (this.isStale(id as string) ? SUPERSEDED_FACTOR : 1),
    } as const;
    const found = queryTerms.size > 0 ? this.searchable(words).search(words, search) : [];
    // Synonyms widen the net at a discount: exact words keep ranking first.
    const expansion = expansionsOf(queryTerms);
    if (expansion) {
      const byId = new Map(found.map((r) => [r.id as string, r]));
      for (const r of this.searchable(expansion).search(expansion, search)) {
        const hit = byId.get(r.id as string);
        if (hit) hit.score += r.score * EXPANSION_WEIGHT;
        else byId.set(r.id as string, { ...r, score: r.score * EXPANSION_WEIGHT, queryTerms: [] });
      }
      found.splice(0, found.length, ...[...byId.values()].sort((a, b) => b.score - a.score));
    }
    const timed = range ? this.applyTime(range, found, facet) : new Set<string>();
    const results = found.slice(0, k).map((r) => this.hit(r, queryTerms, timed.has(r.id as string)));
    return { query, results, skipped, indexed };
  }

  /** Brings the index up to date with memory/ and returns the snapshot it reflects. */
  refresh(): MemorySnapshot {
    const snapshot = this.store.snapshot();
    if ((this.mini || this.lazy) && snapshot === this.synced) return snapshot;
    if (!this.mini && !this.lazy) this.load();
    const current = new Map<string, MemoryEntry>();
    for (const entry of snapshot.entries) if (entry.type !== 'index') current.set(entry.file, entry);
    if (this.lazy && !differs(this.manifest, current)) {
      this.entries = current;
      this.synced = snapshot;
      return snapshot;
    }
    if (this.lazy) {
      // Something changed since the save: this process will rewrite the index, so it needs all of it.
      this.mini = this.lazy.full();
      this.lazy = undefined;
    }
    const mini = this.mini!;
    let changed = 0;
    for (const file of [...this.manifest.keys()]) {
      if (!current.has(file)) {
        if (mini.has(file)) mini.discard(file);
        this.manifest.delete(file);
        this.bodyProblems.delete(file);
        changed++;
      }
    }
    for (const entry of current.values()) {
      const known = this.manifest.get(entry.file);
      if (known && known.mtimeMs === entry.mtimeMs && known.size === entry.size) continue;
      if (mini.has(entry.file)) mini.discard(entry.file);
      this.bodyProblems.delete(entry.file);
      const doc = this.readDoc(entry);
      if ('problem' in doc) this.bodyProblems.set(entry.file, doc);
      else mini.add(doc);
      this.manifest.set(entry.file, { mtimeMs: entry.mtimeMs, size: entry.size });
      changed++;
    }
    this.entries = current;
    this.synced = snapshot;
    if (changed > 0) this.schedulePersist();
    return snapshot;
  }

  /** How many documents are indexed and how many files this instance has read to index them. */
  stats(): { documents: number; filesRead: number } {
    return { documents: this.documentCount(), filesRead: this.filesRead };
  }

  private documentCount(): number {
    return this.mini?.documentCount ?? this.lazy?.documentCount ?? 0;
  }

  /** Writes a pending index to cache/ now (servers call this on shutdown). */
  flush(): void {
    if (this.persistTimer) clearTimeout(this.persistTimer);
    this.persistTimer = undefined;
    if (this.unsaved) this.persist();
  }

  close(): void {
    this.flush();
  }

  private hit(r: SearchResult, queryTerms: Set<string>, timed: boolean): RecallHit {
    const entry = this.entries.get(r.id as string)!;
    const terms = new Set<string>([...queryTerms, ...r.terms]);
    let body = '';
    try {
      body = bodyOf(readFileSync(join(this.store.memoryDir, entry.file), 'utf8'));
    } catch {
      // Deleted since the last refresh; the description still says what it was.
    }
    const source = body.trim() !== '' && hasAny(body, terms) ? body : entry.description || body;
    return {
      name: entry.name,
      type: entry.type,
      score: Math.round(r.score * 1000) / 1000,
      excerpt: excerptAround(source, terms),
      file: entry.file,
      // A named time counts as one query term, met by memories about that time.
      match:
        Math.round(
          ((r.queryTerms.length + (timed ? 1 : 0)) / Math.max(1, queryTerms.size + (timed ? 1 : 0))) * 100,
        ) / 100,
    };
  }

  /**
   * A query that names a time ("early October", "October 22", "2026-12-08") ranks the memories
   * about that time first: those that matched words get TIME_BOOST, and dated memories in the
   * range that matched no word join the list below the best hit (a digest of that week may
   * share no word with the question).
   */
  private applyTime(range: DateRange, found: SearchResult[], facet: Facet | undefined): Set<string> {
    const top = found[0]?.score ?? 1;
    const timed = new Set<string>();
    for (const r of found) {
      const day = this.dayOf(r.id as string);
      if (day && inRange(day, range)) {
        r.score += top * TIME_WEIGHT;
        timed.add(r.id as string);
      }
    }
    for (const [file, entry] of this.entries) {
      if (timed.has(file) || (facet && !matchesFacet(entry, facet))) continue;
      const day = this.dayOf(file);
      if (!day || !inRange(day, range)) continue;
      found.push({ id: file, score: top * TIME_WEIGHT, terms: [], queryTerms: [], match: {} });
      timed.add(file);
    }
    found.sort((a, b) => b.score - a.score);
    return timed;
  }

  private dayOf(file: string): string | undefined {
    const entry = this.entries.get(file);
    return entry ? dateOf(entry) : undefined;
  }

  private facetMatches(file: string, facet: Facet): boolean {
    const entry = this.entries.get(file);
    return entry !== undefined && matchesFacet(entry, facet);
  }

  private isStale(file: string): boolean {
    const entry = this.entries.get(file);
    if (!entry) return false;
    return STALE_STATUSES.has(entry.fields.status ?? '') || entry.fields.superseded_by !== undefined;
  }

  private readDoc(entry: MemoryEntry): IndexedDoc | MemoryProblem {
    this.filesRead++;
    let text: string;
    try {
      const buffer = readFileSync(join(this.store.memoryDir, entry.file));
      if (buffer.length > MAX_MEMORY_BYTES) return { file: entry.file, problem: 'too large' };
      if (buffer.includes(0)) return { file: entry.file, problem: 'binary content' };
      text = buffer.toString('utf8');
    } catch (error) {
      return { file: entry.file, problem: `unreadable: ${(error as NodeJS.ErrnoException).code ?? 'error'}` };
    }
    // The snapshot already parsed (and vetted) this file's frontmatter; only the body is new here.
    return {
      id: entry.file,
      name: entry.name,
      description: entry.description,
      tags: entry.tags.join(' '),
      body: bodyOf(text),
      when: whenWords(entry),
    };
  }

  private load(): void {
    this.mini = undefined;
    this.lazy = undefined;
    this.manifest.clear();
    const saved = this.cacheFile
      ? PersistedIndex.read(this.cacheFile, INDEX_FORMAT, MINI_OPTIONS)
      : undefined;
    if (!saved) {
      // Missing or damaged cache: it is derived, so start empty and index from the files.
      this.mini = new MiniSearch<IndexedDoc>(MINI_OPTIONS);
      return;
    }
    this.lazy = saved;
    for (const [file, mtimeMs, size] of saved.manifest) this.manifest.set(file, { mtimeMs, size });
  }

  /**
   * The index to run `text` against. Straight after a cold load only the postings this query can
   * reach are parsed (a one-shot CLI recall); a process that recalls again loads the rest once.
   */
  private searchable(text: string): MiniSearch<IndexedDoc> {
    if (this.mini) return this.mini;
    const lazy = this.lazy!;
    if (this.recalls > 1) {
      this.mini = lazy.full();
      this.lazy = undefined;
      return this.mini;
    }
    return lazy.searchable(reachOf(contentTerms(text)));
  }

  private schedulePersist(): void {
    this.unsaved = true;
    // Never inside the recall that caused it: saving 10,000 memories takes ~0.7 s, and the
    // caller is waiting for results. Servers save on a timer; one-shot commands flush() after
    // printing.
    const wait = Math.max(0, this.lastPersist + PERSIST_EVERY_MS - Date.now());
    if (this.persistTimer) return;
    this.persistTimer = setTimeout(() => {
      this.persistTimer = undefined;
      this.persist();
    }, wait);
    this.persistTimer.unref();
  }

  private persist(): void {
    this.unsaved = false;
    this.lastPersist = Date.now();
    if (!this.cacheFile || !this.mini) return;
    // Problem files stay out of the manifest so they are retried (and reported) next time.
    const manifest: ManifestRow[] = [];
    for (const [file, m] of this.manifest)
      if (!this.bodyProblems.has(file)) manifest.push([file, m.mtimeMs, m.size]);
    try {
      writePersistedIndex(this.cacheFile, INDEX_FORMAT, manifest, this.mini);
    } catch {
      // Derived data: failing to persist costs the next cold start time, not correctness.
    }
  }
}

/** Whether the files on disk differ from those an index was saved from. */
function differs(
  manifest: Map<string, { mtimeMs: number; size: number }>,
  current: Map<string, MemoryEntry>,
) {
  if (manifest.size !== current.size) return true;
  for (const entry of current.values()) {
    const known = manifest.get(entry.file);
    if (!known || known.mtimeMs !== entry.mtimeMs || known.size !== entry.size) return true;
  }
  return false;
}

/** The index terms a search for `terms` can visit, given the prefix and fuzzy rules of recall(). */
function reachOf(terms: string[]): (term: string) => boolean {
  const exact = new Set(terms);
  const prefixes = terms.filter((t) => t.length >= PREFIX_MIN);
  const fuzzy = terms.filter((t) => t.length >= FUZZY_MIN).map((t) => ({ t, max: fuzzyDistance(t) }));
  return (term) =>
    exact.has(term) ||
    prefixes.some((p) => term.startsWith(p)) ||
    fuzzy.some(({ t, max }) => editDistanceWithin(t, term, max) <= max);
}

function hasAny(text: string, terms: ReadonlySet<string>): boolean {
  for (const token of tokenize(text)) {
    const term = normalizeTerm(token);
    if (term !== null && terms.has(term)) return true;
  }
  return false;
}
