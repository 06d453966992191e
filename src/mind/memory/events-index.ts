import { closeSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import MiniSearch, { type AsPlainObject, type SearchResult } from 'minisearch';
import {
  contentTerms,
  normalizeTerm,
  readCachedValue,
  tokenize,
  writeCachedValue,
} from '../../core/index.js';
import { type DateRange, dateRangeOf, inRange, inWindow, type TimeWindow, withoutTime } from './dates.js';
import { isProblem, readMemoryEntry } from './entries.js';
import { excerptAround } from './excerpt.js';
import { parseFacet } from './facet.js';
import { openForRanges, readRange } from './file-range.js';
import { orderTies, searchExpanded } from './recall-query.js';
import { FUZZY, FUZZY_MIN, PREFIX_MIN } from './saved-terms.js';

/**
 * Recall over what past sessions did: the events in `events/YYYY-MM-DD.jsonl` (every observed
 * tool call with its outcome, the agent's observe and reflect) and the cautions that fired
 * (`memory-uses/YYYY-MM-DD.jsonl`, `via: caution`), with the analysis, synonyms and BM25 of the
 * memory recall. Built when first searched and kept in cache/ in the parsed-cache format, with
 * each day file's inode and how far it was read: the files are append-only, so a refresh reads
 * only what was appended since (a file replaced or cut short is read again). The lines were
 * redacted when they were written; the index holds terms and offsets, not their text.
 */

/** Where the events' recall index reads from and is saved. */
export interface EventsPaths {
  /** `<home>/events`. */
  events: string;
  /** `<home>/memory-uses` (the cautions that fired). */
  uses: string;
  /** `<home>/memory`: a caution is indexed with its memory's name and description. */
  memory?: string | undefined;
  /** The cache file (parsed-cache format); without one the index lives in memory only. */
  cacheFile?: string | undefined;
}

/** What an event result says besides a memory's fields. */
export interface EventHitFields {
  source: 'events';
  /** The session the event belongs to, when its writer knew it. */
  session: string | null;
  /** The host whose hook recorded it; null for the agent's own observe/reflect. */
  host: string | null;
  /** When it happened (ISO). */
  time: string;
  /** The event's id in its day file (`ev_…`); null for a caution, which has none. */
  event: string | null;
}

/** One event result: the shape of a memory's (name, type, score, excerpt, file, match, project) and EventHitFields. */
export interface EventHit extends EventHitFields {
  name: string;
  type: string;
  score: number;
  excerpt: string;
  file: string;
  match: number;
  project: null;
}

/** The event types a result has: a host's record of a call, the agent's observe and reflect, a caution that fired. */
export const EVENT_TYPES = ['tool_call', 'observation', 'reflection', 'caution_fired'] as const;

/** Field weights, as a memory's: the tool named says more than its arguments, they more than its output. */
const EVENT_BOOST = { tool: 3, text: 2, result: 1 } as const;
const FIELDS = Object.keys(EVENT_BOOST);
const MINI = {
  idField: 'id',
  fields: FIELDS,
  storeFields: [] as string[],
  tokenize,
  processTerm: (term: string) => normalizeTerm(term) ?? null,
};
/** Bump when the fields, the analysis or the saved layout change: an older saved index is then rebuilt. */
const EVENTS_FORMAT = 'events-1';
const CACHE_KEY = 'recall-events';
const DAY_FILE = /^\d{4}-\d{2}-\d{2}\.jsonl$/;

interface IndexedEvent {
  id: string;
  tool: string;
  text: string;
  result: string;
}
/** What a result needs of an event: where its line is, and what it is. */
type EventMeta = [
  file: string,
  offset: number,
  length: number,
  time: string,
  type: string,
  name: string,
  session: string,
  host: string,
  event: string,
  tool: string,
];
/** What a line says of itself: time, type, name, session, host, event id, tool. */
type LineMeta = [string, string, string, string, string, string, string];
interface FileState {
  ino: number;
  /** Bytes read: up to the end of the last whole line. */
  read: number;
}
interface SavedEvents {
  files: Record<string, FileState>;
  docs: Record<string, EventMeta>;
  index: AsPlainObject;
}

/** An event line as the index takes it: its indexed fields and its metadata, or undefined for a foreign line. */
function eventOf(
  dir: 'events' | 'memory-uses',
  line: string,
  describe: (file: string) => string,
): { doc: Omit<IndexedEvent, 'id'>; meta: LineMeta } | undefined {
  let e: Record<string, unknown>;
  try {
    e = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (!e || typeof e !== 'object' || typeof e.ts !== 'string') return undefined;
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const session = str(e.session);
  const host = str(e.host);
  if (dir === 'memory-uses') {
    if (e.via !== 'caution' || !Array.isArray(e.files)) return undefined;
    const files = e.files.filter((f): f is string => typeof f === 'string');
    const words = files.map(describe).join(', ');
    return {
      doc: { tool: str(e.tool), text: `caution ${words} ${str(e.on_match)}`, result: '' },
      meta: [e.ts, 'caution_fired', `caution: ${files.join(', ')}`, session, host, '', str(e.tool)],
    };
  }
  if (typeof e.id !== 'string') return undefined;
  const reflect = e.kind === 'reflect';
  const type = reflect ? 'reflection' : e.source === 'hook' ? 'tool_call' : 'observation';
  const name = reflect ? `reflect (${str(e.reflect_kind) || 'internal'})` : str(e.tool_name) || str(e.kind);
  return {
    doc: {
      tool: str(e.tool_name),
      text: [str(e.args), str(e.expected), str(e.observation), str(e.outcome)].filter(Boolean).join('\n'),
      result: [str(e.result), str(e.error)].filter(Boolean).join('\n'),
    },
    meta: [e.ts, type, name, session, host, e.id, str(e.tool_name)],
  };
}

/** The event text an excerpt is cut from: what was indexed, in one piece. */
function textOf(doc: Omit<IndexedEvent, 'id'>): string {
  return [doc.tool, doc.text, doc.result].filter(Boolean).join(' — ');
}

/** A facet on events: `type:`, `tool:`, `host:` or `session:`; any other key matches none. */
function facetTest(facet: string | undefined): ((meta: EventMeta) => boolean) | undefined {
  if (!facet) return undefined;
  const { key, value } = parseFacet(facet);
  const v = value.toLowerCase();
  const at = ({ type: 4, session: 6, host: 7, tool: 9 } as Record<string, number>)[key];
  return (meta) => at !== undefined && String(meta[at]).toLowerCase() === v;
}

export interface EventSearchOptions extends TimeWindow {
  k: number;
  facet?: string | undefined;
  expansion: boolean;
}

/** The events' recall index (see the file's head). One per process; close() saves it. */
export class EventsIndex {
  private readonly paths: EventsPaths;
  private mini = new MiniSearch<IndexedEvent>(MINI);
  private files = new Map<string, FileState>();
  private docs = new Map<string, EventMeta>();
  private loaded = false;
  private dirty = false;
  /** Memories' names and descriptions, by file, as cautions were indexed. */
  private readonly described = new Map<string, string>();

  constructor(paths: EventsPaths) {
    this.paths = paths;
  }

  /** How many events are searchable. */
  get documentCount(): number {
    return this.docs.size;
  }

  /** Ranked events for `query` (time phrases filter by day; no words lists the range's newest first). */
  search(query: string, options: EventSearchOptions): EventHit[] {
    this.refresh();
    const range = dateRangeOf(query);
    const words = range ? withoutTime(query) : query;
    const terms = contentTerms(words);
    const queryTerms = new Set(terms);
    const byFacet = facetTest(options.facet);
    const window = options.since || options.until ? options : undefined;
    const keep = (id: string) => {
      const meta = this.docs.get(id);
      if (!meta) return false;
      const day = meta[3].slice(0, 10);
      return (
        (!range || inRange(day, range)) &&
        (!window || inWindow(meta[3], window)) &&
        (!byFacet || byFacet(meta))
      );
    };
    let found: SearchResult[];
    if (queryTerms.size > 0) {
      found = searchExpanded(
        (t, o) => this.mini.search(t, o),
        words,
        terms,
        {
          boost: { ...EVENT_BOOST },
          prefix: (term: string) => term.length >= PREFIX_MIN,
          fuzzy: (term: string) => (term.length >= FUZZY_MIN ? FUZZY : false),
          combineWith: 'OR',
          filter: (r) => keep(r.id as string),
        },
        options.expansion,
      );
      orderTies(found, options.k);
    } else if (range || window) {
      found = [...this.docs.keys()]
        .filter(keep)
        .sort((a, b) => byTime(this.docs.get(b)![3], this.docs.get(a)![3]))
        .slice(0, options.k)
        .map((id) => ({ id, score: 0, terms: [], queryTerms: [], match: {} }));
    } else return [];
    return found.slice(0, options.k).map((r) => this.hit(r, queryTerms, range));
  }

  /** Saves the index when it changed (one-shot commands after printing; servers on shutdown). */
  close(): void {
    if (!this.dirty || !this.paths.cacheFile) return;
    this.dirty = false;
    const saved: SavedEvents = {
      files: Object.fromEntries(this.files),
      docs: Object.fromEntries(this.docs),
      index: this.mini.toJSON(),
    };
    writeCachedValue(this.paths.cacheFile, CACHE_KEY, EVENTS_FORMAT, saved);
  }

  private hit(r: SearchResult, queryTerms: Set<string>, range: DateRange | undefined): EventHit {
    const meta = this.docs.get(r.id as string)!;
    const [file, offset, length, time, type, name, session, host, event] = meta;
    const terms = new Set<string>([...queryTerms, ...r.terms]);
    let excerpt = '';
    const fd = openForRanges(join(this.dirOf(file), file.slice(file.indexOf('/') + 1)));
    if (fd !== undefined) {
      try {
        const parsed = eventOf(
          file.startsWith('memory-uses/') ? 'memory-uses' : 'events',
          readRange(fd, offset, offset + length),
          this.describe,
        );
        if (parsed) excerpt = excerptAround(textOf(parsed.doc), terms);
      } finally {
        closeSync(fd);
      }
    }
    const timed = range ? 1 : 0;
    return {
      name,
      type,
      score: Math.round(r.score * 1000) / 1000,
      excerpt,
      file,
      match: Math.round(((r.queryTerms.length + timed) / Math.max(1, queryTerms.size + timed)) * 100) / 100,
      project: null,
      source: 'events',
      session: session || null,
      host: host || null,
      time,
      event: event || null,
    };
  }

  /**
   * A caution's memory in words: its name and description (read confined to memory/, once per
   * file), else its file name's words (a memory forgotten since).
   */
  private readonly describe = (file: string): string => {
    let words = this.described.get(file);
    if (words !== undefined) return words;
    words = file.replace(/\.md$/, '').replace(/[_-]+/g, ' ');
    if (this.paths.memory && /^[^/\\]+\.md$/.test(file)) {
      const entry = readMemoryEntry(this.paths.memory, file);
      if (!isProblem(entry)) words = `${entry.name}: ${entry.description}`;
    }
    this.described.set(file, words);
    return words;
  };

  private dirOf(file: string): string {
    return file.startsWith('memory-uses/') ? this.paths.uses : this.paths.events;
  }

  /** Loads the saved index once, then reads what the day files gained since. */
  private refresh(): void {
    if (!this.loaded) this.load();
    const seen = new Set<string>();
    for (const [dir, path] of [
      ['events', this.paths.events],
      ['memory-uses', this.paths.uses],
    ] as const) {
      let names: string[];
      try {
        names = readdirSync(path).filter((n) => DAY_FILE.test(n));
      } catch {
        names = [];
      }
      for (const name of names) {
        const file = `${dir}/${name}`;
        seen.add(file);
        this.readFile(dir, join(path, name), file);
      }
    }
    for (const file of [...this.files.keys()]) if (!seen.has(file)) this.drop(file);
  }

  private load(): void {
    this.loaded = true;
    if (!this.paths.cacheFile) return;
    const saved = readCachedValue<SavedEvents>(this.paths.cacheFile, CACHE_KEY);
    if (!saved || saved.stamp !== EVENTS_FORMAT) return;
    try {
      this.mini = MiniSearch.loadJS(saved.value.index, MINI);
      this.files = new Map(Object.entries(saved.value.files));
      this.docs = new Map(Object.entries(saved.value.docs));
    } catch {
      // Damaged: the index is derived; start empty and read the files.
      this.mini = new MiniSearch<IndexedEvent>(MINI);
      this.files = new Map();
      this.docs = new Map();
    }
  }

  /** Reads what `file` gained since it was last read (all of it when it is new, replaced or shorter). */
  private readFile(dir: 'events' | 'memory-uses', path: string, file: string): void {
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) return;
    let state = this.files.get(file);
    if (state && (state.ino !== st.ino || st.size < state.read)) {
      this.drop(file);
      state = undefined;
    }
    const from = state?.read ?? 0;
    if (st.size === from) return;
    const fd = openForRanges(path);
    if (fd === undefined) return;
    let text: string;
    try {
      text = readRange(fd, from, st.size);
    } finally {
      closeSync(fd);
    }
    // Whole lines only: a line being appended is read next time.
    const end = text.lastIndexOf('\n') + 1;
    if (end === 0) return;
    const docs: IndexedEvent[] = [];
    let at = from;
    for (const line of text.slice(0, end).split('\n').slice(0, -1)) {
      const length = Buffer.byteLength(line) + 1;
      const parsed = line.trim() === '' ? undefined : eventOf(dir, line, this.describe);
      if (parsed) {
        const id = `${file}#${at}`;
        const [time, type, name, session, host, event, tool] = parsed.meta;
        this.docs.set(id, [file, at, length - 1, time, type, name, session, host, event, tool]);
        docs.push({ id, ...parsed.doc });
      }
      at += length;
    }
    this.mini.addAll(docs);
    this.files.set(file, { ino: st.ino, read: at });
    this.dirty = true;
  }

  private drop(file: string): void {
    for (const [id, meta] of this.docs) {
      if (meta[0] !== file) continue;
      this.mini.discard(id);
      this.docs.delete(id);
    }
    this.files.delete(file);
    this.dirty = true;
  }
}

function byTime(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
