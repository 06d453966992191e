import { RecallIndex, type RecallIndexOptions } from './recall-index.js';
import type { MemoryStore } from './store.js';

const indexes = new WeakMap<MemoryStore, RecallIndex>();

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

/** Saves and closes the store's recall index, if one was ever created (a server shutting down). */
export function closeRecallIndex(store: MemoryStore): void {
  indexes.get(store)?.close();
  indexes.delete(store);
}
