import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore, RecallIndex, remember } from '../../../src/mind/index.js';
import { compact, INDEX_FORMAT } from '../../../src/mind/memory/compact.js';
import { readLog } from '../../../src/mind/memory/index-log.js';
import { LiveIndex } from '../../../src/mind/memory/live-index.js';
import {
  fromSnapshot,
  readSavedIndex,
  SavedIndexView,
  writeSnapshot,
} from '../../../src/mind/memory/persisted-index.js';
import { tempDir, waitFor } from '../../helpers/index.js';

const disposers: (() => void)[] = [];
afterEach(() => {
  while (disposers.length) disposers.pop()!();
});

function scratch(memories: number): { home: string; memory: string; cache: string; log: string } {
  const t = tempDir();
  disposers.push(t.dispose);
  const memory = join(t.dir, 'memory');
  mkdirSync(memory, { recursive: true });
  for (let i = 0; i < memories; i++) {
    writeFileSync(
      join(memory, `note_${i}.md`),
      `---\nname: "Note ${i}"\ntype: "note"\ndescription: "about topic${i % 7} and item${i}"\n---\nBody of note ${i} mentions deploy${i % 3} and word${i}.\n`,
    );
  }
  return {
    home: t.dir,
    memory,
    cache: join(t.dir, 'cache', 'recall-index.idx'),
    log: join(t.dir, 'cache', 'recall-index.log'),
  };
}

const indexOf = (s: { memory: string; cache: string }, cache = true) =>
  new RecallIndex(new MemoryStore(s.memory), cache ? { cacheFile: s.cache } : {});

/** [term, postings JSON] of a saved snapshot. */
function savedLines(file: string): Map<string, string> {
  const lines = readSavedIndex(file, INDEX_FORMAT)!.lines;
  return new Map([...lines.keys()].map((term) => [term, lines.get(term)!]));
}

/** Files the change log names, in order. */
const loggedFiles = (file: string) =>
  (readLog(file, INDEX_FORMAT)?.entries ?? []).map((e) => (e[0] === '+' ? e[1].id : e[1]));

/** Results as [file, score], ties in file order (MiniSearch orders ties by internal id). */
const ranked = (index: RecallIndex, query: string) =>
  index
    .recall(query, { k: 50 })
    .results.map((r) => [r.file, Math.round(r.score * 100) / 100] as const)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));

/**
 * A new process reads no memory file (the saved index covers them all) and answers `queries` as
 * an index built from the files would.
 */
function expectSavedIndexAnswers(s: { memory: string; cache: string }, queries: string[]): void {
  const index = indexOf(s);
  expect(index.stats().filesRead).toBe(0);
  const fresh = indexOf(s, false);
  for (const q of queries) expect(ranked(index, q)).toEqual(ranked(fresh, q));
}

/** Another process rewrites note `i` about `word`, recalls it and exits, logging the change. */
function rewrittenElsewhere(s: { memory: string; cache: string }, i: number, word: string): void {
  writeFileSync(
    join(s.memory, `note_${i}.md`),
    `---\nname: "Note ${i}"\ntype: "note"\n---\nNow about ${word}.\n`,
  );
  const other = indexOf(s);
  other.recall(word);
  other.close();
}

/** One process indexes the files, recalls and exits, saving its index. */
function savedBy(s: { memory: string; cache: string }): void {
  const first = indexOf(s);
  first.recall('deploy1');
  first.close();
}

describe("persisted-index: a snapshot on MiniSearch's public serialisation", () => {
  it('answers a query with only the postings it reaches loaded as the whole index does', async () => {
    const t = tempDir();
    disposers.push(t.dispose);
    const options = { fields: ['title', 'text'], storeFields: [] as string[] };
    const mini = new MiniSearch(options);
    const docs = [
      { id: 'a', title: 'alpha beta', text: 'beta gamma gamma' },
      { id: 'b', title: 'gamma', text: 'delta alpha' },
    ];
    mini.addAll([...docs, { id: 'c', title: 'epsilon', text: 'alpha' }]);
    mini.discard('c');
    // What the index should answer: one that never held `c` (discard() leaves c's postings behind).
    const clean = new MiniSearch(options);
    clean.addAll(docs);
    const file = join(t.dir, 'snapshot.idx');
    writeSnapshot(file, 1, mini, [['a', 1, 2]]);
    const saved = readSavedIndex(file, 1)!;
    expect(saved.manifest).toEqual([['a', 1, 2]]);
    expect(readSavedIndex(file, 2)).toBeUndefined();
    // The whole snapshot loads as the index it was written from, less the discarded document's postings.
    const byTerm = (js: ReturnType<typeof mini.toJSON>) => new Map(js.index);
    const loaded = fromSnapshot(saved, options).toJSON();
    expect(loaded.documentIds).toEqual(mini.toJSON().documentIds);
    expect(byTerm(loaded).get('alpha')).toEqual({ 0: { 0: 1 }, 1: { 1: 1 } });
    expect(byTerm(loaded).has('epsilon')).toBe(false);
    expect(fromSnapshot(saved, options).search('alpha gamma')).toEqual(clean.search('alpha gamma'));
    // Used without loading it: only the postings the query reaches are parsed.
    const view = new SavedIndexView(saved, options);
    expect(view.forTerms(['alpha', 'gamma']).search('alpha gamma')).toEqual(clean.search('alpha gamma'));
    expect(view.unparsed).toBe(saved.lines.size - 2);
    // Changed since (a saved document discarded, one added): the whole index after the same
    // changes, its discarded postings vacuumed, scores alike; so does the view loaded whole.
    const d = { id: 'd', title: 'gamma alpha', text: 'zeta' };
    view.discard('b');
    view.add(d);
    const whole = fromSnapshot(saved, options);
    whole.discard('b');
    whole.add(d);
    await whole.vacuum();
    expect(view.documentCount).toBe(2);
    expect(view.has('b')).toBe(false);
    expect(view.has('d')).toBe(true);
    for (const query of ['alpha gamma', 'zeta', 'delta'])
      expect(view.forTerms(query.split(' ')).search(query)).toEqual(whole.search(query));
    expect((await view.whole(8)).search('alpha gamma zeta')).toEqual(whole.search('alpha gamma zeta'));
    // Loading whole leaves the view's parsed postings as they were (they are handed over, not copied).
    expect(view.forTerms(['alpha', 'gamma']).search('alpha gamma')).toEqual(whole.search('alpha gamma'));
    // A view changes only itself, never the saved index it was given (MiniSearch keeps loadJS's
    // averageFieldLength array and updates it in place). Unchanged since, loaded whole: as the
    // clean index, the dead postings left out.
    const unchanged = await new SavedIndexView(saved, options).whole(8);
    expect(unchanged.search('alpha gamma epsilon')).toEqual(clean.search('alpha gamma epsilon'));
    expect(new Map(unchanged.toJSON().index).has('epsilon')).toBe(false);
    // Cut short (a full disk): not a snapshot.
    writeFileSync(file, readFileSync(file, 'utf8').slice(0, -3));
    expect(readSavedIndex(file, 1)).toBeUndefined();
  });
});

describe('RecallIndex persistence', () => {
  it("applies another process's change to a saved index without loading every posting: one log line, the snapshot untouched", async () => {
    const s = scratch(40);
    savedBy(s); // 40 changes: over the compaction threshold, so close() writes a snapshot
    const snapshot = readFileSync(s.cache, 'utf8');
    expect(loggedFiles(s.log)).toEqual([]);

    const { file } = await remember(s.home, {
      content: 'The zanzibar cluster hosts billing.',
      type: 'reference',
      name: 'Zanzibar',
    });
    const cold = indexOf(s);
    expect(cold.recall('zanzibar').results[0]?.name).toBe('Zanzibar');
    expect(cold.stats().filesRead).toBe(1);
    cold.close();
    expect(readFileSync(s.cache, 'utf8')).toBe(snapshot);
    expect(loggedFiles(s.log)).toEqual([file]);

    // A third process reads the log instead of the file.
    expectSavedIndexAnswers(s, ['zanzibar billing', 'topic3 item12', 'deploy2 word', 'note']);
  });

  it('saves in the background once recall is idle, not inside the recall that changed it', async () => {
    const s = scratch(30);
    const index = indexOf(s);
    index.recall('deploy1');
    expect(existsSync(s.log)).toBe(false);
    await waitFor('the background save', () => loggedFiles(s.log).length === 30);
    const size = statSync(s.log).size;
    await remember(s.home, { content: 'Quokka facts.', type: 'note', name: 'Quokka' });
    expect(index.recall('quokka').results[0]?.name).toBe('Quokka');
    expect(statSync(s.log).size).toBe(size);
    await waitFor('the next background save', () => statSync(s.log).size > size);
    const next = indexOf(s);
    expect(next.recall('quokka').results[0]?.name).toBe('Quokka');
    expect(next.stats().filesRead).toBe(0);
  });

  it('loads the rest of a saved index in the background after the first recall', async () => {
    const s = scratch(40);
    savedBy(s);
    // A process started on the saved index: nothing changed, one recall, then idle time.
    const live = new LiveIndex(new MemoryStore(s.memory), { cacheFile: s.cache });
    live.refresh();
    live.search('deploy1', {});
    expect(live.unloadedTerms).toBeGreaterThan(0);
    await waitFor('the rest of the index to load', () => live.unloadedTerms === 0);
  });

  it('keeps changes unsaved when a background save fails, so close() saves them', async () => {
    const s = scratch(30);
    // A directory where the log goes: the background append fails.
    mkdirSync(s.log, { recursive: true });
    const live = new LiveIndex(new MemoryStore(s.memory), { cacheFile: s.cache });
    live.refresh();
    await waitFor('a failed background save', () => live.failedSaves > 0);
    rmSync(s.log, { recursive: true });
    live.close();
    // No snapshot yet: close() writes one holding them (and starts an empty log).
    expect(readSavedIndex(s.cache, INDEX_FORMAT)?.manifest).toHaveLength(30);
    expect(loggedFiles(s.log)).toHaveLength(0);
    expect(indexOf(s).recall('deploy1').results.length).toBeGreaterThan(0);
    expect(indexOf(s).stats().filesRead).toBe(0);
  });

  it('a torn or damaged log line costs a re-read of its file, never a wrong index', () => {
    const s = scratch(40);
    savedBy(s);
    rewrittenElsewhere(s, 3, 'zebras');
    // A writer killed mid-append, and the next append glued to its half line.
    appendFileSync(s.log, '["+",{"id":"note_5.md","name":"Note 5","body":"wro');
    appendFileSync(s.log, '["-","note_6.md"]\n');
    expectSavedIndexAnswers(s, ['zebras', 'word5', 'word6 deploy0', 'note']);
  });

  it('folds a long log into a new snapshot in the background, dropping the postings of replaced and deleted memories', async () => {
    const s = scratch(80);
    const index = indexOf(s);
    index.recall('deploy1');
    index.close();
    const snapshot = statSync(s.cache).mtimeMs;
    for (let i = 0; i < 60; i++) {
      writeFileSync(
        join(s.memory, `note_${i}.md`),
        `---\nname: "Note ${i}"\ntype: "note"\n---\nRewritten ${i}.\n`,
      );
    }
    for (let i = 60; i < 70; i++) unlinkSync(join(s.memory, `note_${i}.md`));
    index.recall('rewritten');
    await waitFor(
      'a compaction',
      () => statSync(s.cache).mtimeMs > snapshot && loggedFiles(s.log).length === 0,
    );
    const saved = readSavedIndex(s.cache, INDEX_FORMAT)!;
    expect(saved.tables.dirtCount).toBe(0);
    const live = new Set(saved.docs.shorts());
    for (const json of savedLines(s.cache).values()) {
      for (const docs of Object.values(JSON.parse(json) as Record<string, Record<string, number>>))
        for (const id of Object.keys(docs)) expect(live.has(id)).toBe(true);
    }
    expectSavedIndexAnswers(s, ['word65 deploy1']);
  });

  it('a compaction carries over what other processes appended to the log while it ran', async () => {
    const s = scratch(40);
    savedBy(s);
    rewrittenElsewhere(s, 1, 'otters');
    expect(loggedFiles(s.log)).toEqual(['note_1.md']);
    // compact() has read the log when it first yields (vacuuming note_1's old postings).
    const running = compact({ snapshot: s.cache, log: s.log });
    unlinkSync(join(s.memory, 'note_2.md')); // and another process says so
    appendFileSync(s.log, '["-","note_2.md"]\n');
    expect(await running).toBe(1);
    expect(loggedFiles(s.log)).toEqual(['note_2.md']);
    expect(readSavedIndex(s.cache, INDEX_FORMAT)?.manifest.map((row) => row[0])).toContain('note_1.md');
    expectSavedIndexAnswers(s, ['otters', 'word2 deploy2', 'note']);
  });
});
