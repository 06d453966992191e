import { join } from 'node:path';
import { homePaths } from '../../core/index.js';
import { LiveIndex, type LiveIndexOptions } from './live-index.js';
import { RecallQuery } from './recall-query.js';
import { RECALL_INDEX_FILE } from './recall-stamp.js';
import { homeMemoryStore, type MemoryStore } from './store.js';

export type { RecallHit, RecallOptions, RecallResult } from './recall-query.js';
export { FIELD_BOOST, MAX_K, SIMILAR_FLOOR, SUPERSEDED_FACTOR } from './recall-query.js';
export { RECALL_INDEX_FILE } from './recall-stamp.js';

export interface RecallIndexOptions extends LiveIndexOptions {
  /** Query expansion with the synonym table (default on; the bench measures it off). */
  expansion?: boolean;
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

  constructor(store: MemoryStore, options: RecallIndexOptions = {}) {
    const live = new LiveIndex(store, options);
    super(live, store.memoryDir, options.expansion ?? true);
    this.live = live;
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
  }
}
