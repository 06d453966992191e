import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import type { SearchOptions, SearchResult } from 'minisearch';
import { contentTerms } from '../../core/index.js';
import { INDEX_FORMAT, lastEntries, MINI_OPTIONS, replay } from './compact.js';
import type { MemoryEntry, MemoryProblem } from './entries.js';
import { LazyEntries } from './entries-cache.js';
import { type IndexedDoc, readLog } from './index-log.js';
import type { EntryLookup } from './live-index.js';
import { readSavedIndexAt, SavedIndexView } from './persisted-index.js';
import { type RecallOptions, RecallQuery, type RecallResult, type RecallSource } from './recall-query.js';
import { homeStampedFiles, type StampedFiles, trustedStamp } from './recall-stamp.js';
import { SavedTerms } from './saved-terms.js';

/**
 * The saved recall index and entry cache as a stamp vouches for them (recall-stamp.ts), for a
 * one-shot recall: the snapshot's tables and terms are read, its postings at their offsets as
 * the query reaches them, the change log replayed on top, and entries only as the results name
 * them. Nothing is read from memory/ but the results' own files (for their excerpts), and
 * nothing is written. The ranking is RecallQuery's, as a server's over the same index.
 */
export class TrustedIndex implements RecallSource {
  readonly entries: EntryLookup;
  private readonly view: SavedIndexView<IndexedDoc>;
  private readonly terms: SavedTerms;
  private readonly problems: MemoryProblem[];
  private readonly lazy: LazyEntries;

  private constructor(
    view: SavedIndexView<IndexedDoc>,
    terms: SavedTerms,
    lazy: LazyEntries,
    problems: MemoryProblem[],
  ) {
    this.view = view;
    this.terms = terms;
    this.lazy = lazy;
    this.problems = problems;
    // As a LiveIndex holds them: memory/'s index file (MEMORY.md) is not a memory.
    this.entries = {
      get: (file: string): MemoryEntry | undefined => {
        const entry = lazy.get(file);
        return entry?.type === 'index' ? undefined : entry;
      },
      *[Symbol.iterator](): Iterator<[string, MemoryEntry]> {
        for (const entry of lazy.all()) if (entry.type !== 'index') yield [entry.file, entry];
      },
    };
  }

  /** Opens what the stamp vouches for, or undefined when it vouches for nothing (go the long way). */
  static open(files: StampedFiles): TrustedIndex | undefined {
    const stamp = trustedStamp(files);
    if (!stamp) return undefined;
    const saved = readSavedIndexAt(files.snapshot, INDEX_FORMAT);
    if (!saved) return undefined;
    const lazy = LazyEntries.open(files.entries);
    if (lazy?.dirMtimeMs !== stamp.dirMtimeMs) {
      lazy?.close();
      return undefined;
    }
    const view = new SavedIndexView<IndexedDoc>(saved, MINI_OPTIONS);
    const log = readLog(files.log, INDEX_FORMAT);
    if (log) {
      const last = lastEntries(log.entries);
      view.discardAll(last.keys());
      replay(view, new Map(), last);
    }
    return new TrustedIndex(view, new SavedTerms(saved.lines), lazy, stamp.problems);
  }

  refresh(): MemoryProblem[] {
    return [...this.problems];
  }

  get documentCount(): number {
    return this.view.documentCount;
  }

  search(text: string, options: SearchOptions): SearchResult[] {
    return this.view.forTerms(this.terms.reachable(contentTerms(text))).search(text, options);
  }

  close(): void {
    this.lazy.close();
  }
}

/**
 * A one-shot recall over what the stamp vouches for; undefined when it vouches for nothing, or
 * when a result's file changed since (edited in place, which memory/'s mtime does not show):
 * then the caller goes the long way, which re-reads it.
 */
export function trustedRecall(
  home: { memory: string; cache: string },
  query: string,
  options: RecallOptions,
): RecallResult | undefined {
  const files = homeStampedFiles(home);
  const trusted = TrustedIndex.open(files);
  if (!trusted) return undefined;
  try {
    const result = new RecallQuery(trusted, files.memoryDir).recall(query, options);
    for (const hit of result.results) {
      const entry = trusted.entries.get(hit.file);
      const now = lstatSync(join(files.memoryDir, hit.file), { throwIfNoEntry: false });
      if (!entry || !now?.isFile() || now.mtimeMs !== entry.mtimeMs || now.size !== entry.size)
        return undefined;
    }
    return result;
  } finally {
    trusted.close();
  }
}
