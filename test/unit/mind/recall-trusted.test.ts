import { copyFileSync, mkdirSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { homePaths } from '../../../src/core/index.js';
import { openHomeRecall, type RecallOptions, remember, trustedRecall } from '../../../src/mind/index.js';
import { tempDir } from '../../helpers/index.js';

const disposers: (() => void)[] = [];
afterEach(() => {
  for (const dispose of disposers.splice(0)) dispose();
});

/** A home with `n` memories, memory/'s mtime a second in the past (older than the racy window). */
function home(n: number): { dir: string; memory: string } {
  const t = tempDir();
  disposers.push(t.dispose);
  const memory = join(t.dir, 'memory');
  mkdirSync(memory, { recursive: true });
  for (let i = 0; i < n; i++) {
    const project = i % 4 === 0 ? 'project_id: "alpha"\nproject_name: "alpha"\n' : '';
    const status = i % 9 === 0 ? 'status: "superseded"\n' : '';
    writeFileSync(
      join(memory, `note_${i}.md`),
      `---\nname: "Note ${i} deploy${i % 5}"\ntype: "${i % 3 === 0 ? 'feedback' : 'note'}"\ndescription: "about topic${i % 7} and item${i}"\ntags: ["t${i % 2}"]\n${project}${status}date: 2026-10-${String(1 + (i % 28)).padStart(2, '0')}\n---\nBody of note ${i} mentions deployment${i % 3}, rollback and word${i}.\n`,
    );
  }
  // A file name the entry cache must escape (quotes, a backslash, non-ASCII).
  writeFileSync(
    join(memory, 'odd "name" \\ ü.md'),
    '---\nname: "Odd name"\ntype: "note"\n---\nAn odd rollback of deploy2.\n',
  );
  backdate(memory);
  return { dir: t.dir, memory };
}

function backdate(dir: string): void {
  const past = new Date(Date.now() - 1000);
  utimesSync(dir, past, past);
}

/** The long way: memory/ scanned, the index brought up to date; closing it saves and stamps. */
function longWay(dir: string, query: string, options: RecallOptions) {
  const index = openHomeRecall(dir);
  const result = index.recall(query, options);
  index.close();
  return result;
}

const QUERIES: [string, RecallOptions][] = [
  ['deploy2 rollback', {}],
  ['deployments', { k: 10 }],
  ['item12 topic3', { k: 3 }],
  ['word1', { k: 20 }],
  ['deplyment', { k: 10 }],
  ['rollback', { k: 10, facet: 'type:feedback' }],
  ['rollback', { k: 10, facet: 'tag:t1' }],
  ['rollback', { k: 10, scope: { id: 'alpha', name: 'alpha' } }],
  ['rollback', { k: 10, scope: null }],
  ['what happened in early October', { k: 10 }],
  ['nothing-matches-this', {}],
];

describe('one-shot recall from the stamped index', () => {
  it('answers as the long way does, without it, once a long way has stamped the index', () => {
    const h = home(60);
    expect(trustedRecall(homePaths(h.dir), 'rollback', {})).toBeUndefined(); // nothing saved yet
    const expected = QUERIES.map(([q, o]) => longWay(h.dir, q, o));
    for (const [i, [q, o]] of QUERIES.entries()) {
      expect(trustedRecall(homePaths(h.dir), q, o), q).toEqual(expected[i]);
    }
    // Its entry found by bisection among the escaped names.
    expect(trustedRecall(homePaths(h.dir), 'odd rollback', {})?.results[0]?.file).toBe('odd "name" \\ ü.md');
  });

  it("takes another process's remember in at once: memory/ moved, so the long way answers and stamps again", async () => {
    const h = home(30);
    longWay(h.dir, 'rollback', {});
    expect(trustedRecall(homePaths(h.dir), 'rollback', {})).toBeDefined();
    await remember(h.dir, {
      content: 'The zanzibar cluster hosts billing.',
      type: 'reference',
      name: 'Zanzibar',
    });
    expect(trustedRecall(homePaths(h.dir), 'zanzibar', {})).toBeUndefined();
    backdate(h.memory);
    const after = longWay(h.dir, 'zanzibar', {});
    expect(after.results[0]?.name).toBe('Zanzibar');
    // The change is in the log now, replayed on the snapshot: answers as the long way.
    for (const [q, o] of [...QUERIES, ['zanzibar billing', {}] as [string, RecallOptions]]) {
      expect(trustedRecall(homePaths(h.dir), q, o), q).toEqual(longWay(h.dir, q, o));
    }
  });

  it('goes the long way when a result was edited in place (memory/ does not move), and sees the edit', () => {
    const h = home(20);
    longWay(h.dir, 'rollback', {});
    const file = join(h.memory, 'note_3.md');
    writeFileSync(
      file,
      '---\nname: "Note 3"\ntype: "note"\n---\nNow about rollback kumquats, rollback and rollback.\n',
    );
    const past = new Date(Date.now() - 500);
    utimesSync(file, past, past);
    backdate(h.memory);
    expect(trustedRecall(homePaths(h.dir), 'rollback', { k: 20 })).toBeUndefined();
    expect(longWay(h.dir, 'kumquats', {}).results[0]?.file).toBe('note_3.md');
    expect(trustedRecall(homePaths(h.dir), 'kumquats', {})?.results[0]?.file).toBe('note_3.md');
  });

  it('trusts nothing the stamp does not vouch for: a rewritten index or entry cache, a racy memory/', () => {
    const h = home(20);
    const paths = homePaths(h.dir);
    longWay(h.dir, 'rollback', {});
    expect(trustedRecall(paths, 'rollback', {})).toBeDefined();
    // The index rewritten by another process (a new file, as a compaction writes it), even
    // with the same bytes: the stamp no longer holds.
    const snapshot = join(paths.cache, 'recall-index.idx');
    copyFileSync(snapshot, `${snapshot}.new`);
    renameSync(`${snapshot}.new`, snapshot);
    expect(trustedRecall(paths, 'rollback', {})).toBeUndefined();
    longWay(h.dir, 'rollback', {});
    expect(trustedRecall(paths, 'rollback', {})).toBeDefined();
    writeFileSync(join(paths.cache, 'memory-entries.json'), '{}\n');
    expect(trustedRecall(paths, 'rollback', {})).toBeUndefined();
    longWay(h.dir, 'rollback', {});
    expect(trustedRecall(paths, 'rollback', {})).toBeDefined();
    // memory/ changed within the racy window before the look: no stamp is written.
    writeFileSync(join(h.memory, 'note_new.md'), '---\nname: "New"\ntype: "note"\n---\nrollback\n');
    longWay(h.dir, 'rollback', {});
    expect(trustedRecall(paths, 'rollback', {})).toBeUndefined();
  });
});
