import {
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore, RecallIndex, remember } from '../../../src/mind/index.js';
import { LiveIndex } from '../../../src/mind/memory/live-index.js';
import { loadTermJson, tablesOf, termJson } from '../../../src/mind/memory/persisted-index.js';
import { tempDir } from '../../helpers/index.js';

const disposers: (() => void)[] = [];
afterEach(() => {
  while (disposers.length) disposers.pop()!();
});

function scratch(memories: number): { home: string; memory: string; cache: string } {
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
  return { home: t.dir, memory, cache: join(t.dir, 'cache', 'recall-index.idx') };
}

const indexOf = (s: { memory: string; cache: string }, cache = true) =>
  new RecallIndex(new MemoryStore(s.memory), cache ? { cacheFile: s.cache } : {});

/** Waits (up to 10 s) for background work (a save, loading) to show. */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for background work');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** [term, postings] lines of a saved index, without its header. */
function savedLines(file: string): Map<string, string> {
  const lines = readFileSync(file, 'utf8').trim().split('\n').slice(1);
  return new Map(lines.map((l) => [l.slice(0, l.indexOf('\t')), l.slice(l.indexOf('\t') + 1)]));
}

/** Results as [file, score], ties in file order (MiniSearch orders ties by internal id). */
const ranked = (index: RecallIndex, query: string) =>
  index
    .recall(query, { k: 50 })
    .results.map((r) => [r.file, Math.round(r.score * 100) / 100] as const)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));

describe('persisted-index: MiniSearch read one term at a time', () => {
  it('termJson, loadTermJson and tablesOf agree with toJSON and loadJS', () => {
    const options = { fields: ['title', 'text'], storeFields: [] as string[] };
    const mini = new MiniSearch(options);
    mini.addAll([
      { id: 'a', title: 'alpha beta', text: 'beta gamma gamma' },
      { id: 'b', title: 'gamma', text: 'delta alpha' },
      { id: 'c', title: 'epsilon', text: 'alpha' },
    ]);
    mini.discard('c');
    const { index, ...tables } = mini.toJSON();
    expect(tablesOf(mini)).toEqual(tables);
    const live = tables.documentIds;
    for (const [term, data] of index) {
      // Postings of the discarded document are left out; everything else is byte-identical.
      const expected = JSON.parse(JSON.stringify(data)) as Record<string, Record<string, number>>;
      for (const docs of Object.values(expected))
        for (const id of Object.keys(docs)) if (!(id in live)) delete docs[id];
      const kept = Object.fromEntries(
        Object.entries(expected).filter(([, docs]) => Object.keys(docs).length > 0),
      );
      const json = termJson(mini, term, live);
      if (Object.keys(kept).length === 0) expect(json).toBeUndefined();
      else expect(JSON.parse(json!)).toEqual(kept);
    }
    const rebuilt = MiniSearch.loadJS({ ...tables, index: [] }, options);
    for (const [term] of index) {
      const json = termJson(mini, term, live);
      if (json) loadTermJson(rebuilt, term, json);
    }
    // MiniSearch drops a discarded document's postings lazily, during the first search that meets them.
    mini.search('alpha gamma');
    expect(rebuilt.search('alpha gamma')).toEqual(mini.search('alpha gamma'));
  });
});

describe('RecallIndex persistence', () => {
  it("applies another process's change to a saved index without loading every posting, rewriting only changed terms", async () => {
    const s = scratch(40);
    const first = indexOf(s);
    first.recall('deploy1');
    first.close();
    const before = savedLines(s.cache);

    await remember(s.home, {
      content: 'The zanzibar cluster hosts billing.',
      type: 'reference',
      name: 'Zanzibar',
    });
    const cold = indexOf(s);
    expect(cold.recall('zanzibar').results[0]?.name).toBe('Zanzibar');
    expect(cold.stats().filesRead).toBe(1);
    cold.close();
    const after = savedLines(s.cache);
    // Terms the new memory does not use keep their line as it was.
    const changed = [...after.keys()].filter((t) => after.get(t) !== before.get(t));
    expect(changed).toEqual(expect.arrayContaining(['zanzibar', 'cluster', 'host', 'bill']));
    expect(changed.length).toBeLessThan(10);
    for (const term of ['note', 'deploy1', 'topic3', 'word12'])
      expect(after.get(term)).toBe(before.get(term));

    // A third process answers as an index built from the files would.
    const fresh = indexOf(s, false);
    for (const q of ['zanzibar billing', 'topic3 item12', 'deploy2 word', 'note'])
      expect(ranked(indexOf(s), q)).toEqual(ranked(fresh, q));
  });

  it('saves in the background once recall is idle, not inside the recall that changed it', async () => {
    const s = scratch(30);
    const index = indexOf(s);
    index.recall('deploy1');
    expect(existsSync(s.cache)).toBe(false);
    await until(() => existsSync(s.cache));
    const saved = statSync(s.cache).mtimeMs;
    await remember(s.home, { content: 'Quokka facts.', type: 'note', name: 'Quokka' });
    expect(index.recall('quokka').results[0]?.name).toBe('Quokka');
    expect(statSync(s.cache).mtimeMs).toBe(saved);
    await until(() => statSync(s.cache).mtimeMs > saved);
    expect(indexOf(s).recall('quokka').results[0]?.name).toBe('Quokka');
  });

  it('loads the rest of a saved index in the background after the first recall', async () => {
    const s = scratch(30);
    const first = indexOf(s);
    first.recall('deploy1');
    first.close();
    // A process started on the saved index: nothing changed, one recall, then idle time.
    const live = new LiveIndex(new MemoryStore(s.memory), { cacheFile: s.cache });
    live.refresh();
    live.reach(['deploy1']);
    expect(live.unloadedTerms).toBeGreaterThan(0);
    await until(() => live.unloadedTerms === 0);
  });

  it('keeps changes unsaved when a background save fails, so close() saves them', async () => {
    const s = scratch(30);
    // A directory where the index file goes: the background save's rename fails.
    mkdirSync(join(s.cache, 'blocker'), { recursive: true });
    const failed = new Promise<void>((resolve) => {
      const watcher = watch(join(s.cache, '..'), (_event, name) => {
        // The save's temp file came and went: the write ran and gave up.
        if (name?.endsWith('.tmp') && !existsSync(join(s.cache, '..', name))) {
          watcher.close();
          resolve();
        }
      });
    });
    const index = indexOf(s);
    index.recall('deploy1');
    await failed;
    rmSync(s.cache, { recursive: true });
    index.close();
    expect(existsSync(s.cache)).toBe(true);
    expect(indexOf(s).recall('deploy1').results.length).toBeGreaterThan(0);
    expect(indexOf(s).stats().filesRead).toBe(0);
  });

  it('drops the postings of replaced and deleted memories once they are many', () => {
    const s = scratch(80);
    const index = indexOf(s);
    index.recall('deploy1');
    index.close();
    for (let i = 0; i < 60; i++) {
      writeFileSync(
        join(s.memory, `note_${i}.md`),
        `---\nname: "Note ${i}"\ntype: "note"\n---\nRewritten ${i}.\n`,
      );
    }
    for (let i = 60; i < 70; i++) unlinkSync(join(s.memory, `note_${i}.md`));
    index.recall('rewritten');
    index.close();
    const text = readFileSync(s.cache, 'utf8');
    const head = JSON.parse(text.slice(0, text.indexOf('\n'))) as {
      dead: number;
      tables: { documentIds: Record<string, string> };
    };
    expect(head.dead).toBe(0);
    const live = new Set(Object.keys(head.tables.documentIds));
    for (const json of savedLines(s.cache).values()) {
      for (const docs of Object.values(JSON.parse(json) as Record<string, Record<string, number>>))
        for (const id of Object.keys(docs)) expect(live.has(id)).toBe(true);
    }
    expect(ranked(indexOf(s), 'word65 deploy1')).toEqual(ranked(indexOf(s, false), 'word65 deploy1'));
  });
});
