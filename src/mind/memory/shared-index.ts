import { recallIndexes as indexes } from './index-registry.js';
import { RecallIndex, type RecallIndexOptions } from './recall-index.js';
import type { MemoryStore } from './store.js';

export { closeRecallIndex } from './index-registry.js';

/**
 * The one recall index of a memory store (all tool handlers and connections of a server share
 * it). Created on first use, never by bootstrap: the packet needs counts, not a search index.
 */
export function recallIndexOf(store: MemoryStore, options: RecallIndexOptions = {}): RecallIndex {
  let index = indexes.get(store);
  if (!index) {
    index = new RecallIndex(store, options);
    indexes.set(store, index);
  }
  return index;
}
