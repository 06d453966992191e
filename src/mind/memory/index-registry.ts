import type { RecallIndex } from './recall-index.js';
import type { MemoryStore } from './store.js';

/**
 * The recall index each memory store has, if any. Apart from shared-index.ts so that closing a
 * mind (which every packet does) does not load the search engine it never built.
 */
export const recallIndexes = new WeakMap<MemoryStore, RecallIndex>();

/** Saves and closes the store's recall index, if one was ever created (a server shutting down). */
export function closeRecallIndex(store: MemoryStore): void {
  recallIndexes.get(store)?.close();
  recallIndexes.delete(store);
}
