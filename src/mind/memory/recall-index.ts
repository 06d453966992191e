import { join } from 'node:path';
import { homePaths, parsedCacheFile, UserError } from '../../core/index.js';
import { usesDir } from '../observation/index.js';
import { EventsIndex, type EventsPaths } from './events-index.js';
import { LiveIndex, type LiveIndexOptions } from './live-index.js';
import {
  RECALL_SOURCES,
  type RecallHit,
  type RecallOptions,
  RecallQuery,
  type RecallResult,
} from './recall-query.js';
import { RECALL_INDEX_FILE } from './recall-stamp.js';
import { homeMemoryStore, type MemoryStore } from './store.js';

export type { EventHit, EventsPaths } from './events-index.js';
export { EVENT_TYPES } from './events-index.js';
export type { RecallHit, RecallOptions, RecallResult, RecallSourceName } from './recall-query.js';
export { FIELD_BOOST, MAX_K, RECALL_SOURCES, SIMILAR_FLOOR, SUPERSEDED_FACTOR } from './recall-query.js';
export { RECALL_INDEX_FILE } from './recall-stamp.js';

export interface RecallIndexOptions extends LiveIndexOptions {
  /** Query expansion with the synonym table (default on; the bench measures it off). */
  expansion?: boolean;
  /** The events of past sessions, for `source: events | all` (without them such a recall finds no event). */
  events?: EventsPaths;
}

/** Where a home's events are read from and their index kept. */
export function homeEventsPaths(home: string): EventsPaths {
  const paths = homePaths(home);
  return {
    events: paths.events,
    uses: usesDir(home),
    memory: paths.memory,
    cacheFile: parsedCacheFile(paths.cache, 'recall-events'),
  };
}

/**
 * A home's recall index for a one-shot command (`firstlight recall`): the memory store and the
 * saved index alone, not the mind (whose start sweeps the home, reads settings and builds the
 * guidance part, none of which a search needs). Close it after printing: that saves what changed.
 */
export function openHomeRecall(home: string): RecallIndex {
  const paths = homePaths(home);
  return new RecallIndex(homeMemoryStore(paths), {
    cacheFile: join(paths.cache, RECALL_INDEX_FILE),
    events: homeEventsPaths(home),
  });
}

/**
 * BM25 recall over memory/ (name, description, tags, body), on a LiveIndex kept in step with
 * the MemoryStore's snapshot and saved under cache/. A call costs one stat of memory/ while
 * nothing changed; when something did, only files whose mtime or size moved are re-read, so
 * another process's `remember` is visible to the next `recall` without a rebuild.
 */
export class RecallIndex extends RecallQuery {
  private readonly live: LiveIndex;
  private readonly eventsPaths: EventsPaths | undefined;
  private readonly expand: boolean;
  /** Opened when a recall first asks for events. */
  private eventsIndex: EventsIndex | undefined;

  constructor(store: MemoryStore, options: RecallIndexOptions = {}) {
    const live = new LiveIndex(store, options);
    super(live, store.memoryDir, options.expansion ?? true);
    this.live = live;
    this.eventsPaths = options.events;
    this.expand = options.expansion ?? true;
  }

  /**
   * Ranked memories, events of past sessions, or both (`source`). With both, each list is
   * ranked by its own BM25 and the two are merged by score; every hit then names its source.
   */
  override recall(query: string, options: RecallOptions = {}): RecallResult {
    const source = options.source ?? 'memory';
    if (!(RECALL_SOURCES as readonly string[]).includes(source)) {
      throw new UserError(`source must be one of ${RECALL_SOURCES.join(', ')}, not "${source}"`, {
        code: 'INVALID_ARGUMENT',
        hint: 'source: memory (the default), events (what past sessions did) or all',
      });
    }
    if (source === 'memory') return super.recall(query, options);
    const k = options.k ?? 5;
    // Events only: the memory index is not opened (indexed 0: no memory was searched).
    const memory: RecallResult =
      source === 'all' ? super.recall(query, options) : { query, results: [], skipped: [], indexed: 0 };
    const events = this.events();
    const found: RecallHit[] = events
      ? events.search(query, {
          k,
          facet: options.facet,
          since: options.since,
          until: options.until,
          expansion: this.expand,
        })
      : [];
    const results = [...memory.results.map((r) => ({ ...r, source: 'memory' as const })), ...found]
      .sort((a, b) => b.score - a.score)
      .slice(0, k);
    return { ...memory, results, events_indexed: events?.documentCount ?? 0 };
  }

  private events(): EventsIndex | undefined {
    if (!this.eventsPaths) return undefined;
    this.eventsIndex ??= new EventsIndex(this.eventsPaths);
    return this.eventsIndex;
  }

  /** How many documents are indexed and how many files this instance has read to index them. */
  stats(): { documents: number; filesRead: number } {
    this.live.refresh();
    return { documents: this.live.documentCount, filesRead: this.live.filesRead };
  }

  /**
   * Writes unsaved index changes to cache/ now and stops background work (one-shot commands
   * after printing; servers on shutdown). The index stays usable.
   */
  close(): void {
    this.live.close();
    this.eventsIndex?.close();
  }
}
