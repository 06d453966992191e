import {
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { normalizeTerm, parseFrontmatter, STEMMED_ENDINGS, stem, tokenize } from '../../../src/core/index.js';
import {
  createMind,
  fileNameFor,
  MemoryStore,
  openRecallIndex,
  parseFacet,
  RecallIndex,
  remember,
} from '../../../src/mind/index.js';
import { exampleHomeCopy, REPO_ROOT } from '../../helpers/index.js';

const homes: { dispose: () => void }[] = [];
function home(): string {
  const h = exampleHomeCopy();
  homes.push(h);
  return h.dir;
}
afterEach(() => {
  while (homes.length) homes.pop()!.dispose();
});

function indexFor(dir: string, cache = true) {
  const store = new MemoryStore(join(dir, 'memory'));
  return new RecallIndex(store, cache ? { cacheFile: join(dir, 'cache', 'recall-index.idx') } : {});
}

describe('fileNameFor', () => {
  it('makes a safe, type-prefixed file name from any name', () => {
    expect(fileNameFor('user', 'Bob Tea')).toBe('user_bob_tea.md');
    expect(fileNameFor('note', '../../etc/passwd')).toBe('note_etc_passwd.md');
    expect(fileNameFor('note', 'MEMORY')).toBe('note_memory.md');
    expect(fileNameFor('feedback', 'feedback squash')).toBe('feedback_squash.md');
    expect(fileNameFor('note', 'Café déjà vu')).toBe('note_cafe_deja_vu.md');
    expect(fileNameFor('note', '日本語')).toMatch(/^note_m_[0-9a-f]{12}\.md$/);
  });
});

describe('stem', () => {
  it('conflates inflections', () => {
    expect(stem('deployments')).toBe(stem('deploy'));
    expect(stem('running')).toBe(stem('runs'));
    expect(stem('caching')).toBe(stem('cached'));
  });

  // The cases the packages measured in src/core/text/stemmer.ts get wrong: why it is kept.
  it('keeps the conflations a packaged Porter or Porter2 stemmer loses', () => {
    expect(stem('deployment')).toBe(stem('deploy'));
    expect(stem('deployed')).toBe(stem('deploy'));
    expect(stem('tried')).toBe(stem('try'));
    expect(stem('dries')).toBe(stem('dry'));
    expect(stem('prs')).toBe('pr');
    expect(stem('happiness')).toBe(stem('happy'));
  });

  // recall's excerpts skip stemming words that cannot become a query term by their first letter.
  it("never changes a word's first letter", () => {
    const words = new Set<string>();
    for (const file of ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).map((f) => join('docs', f))]) {
      if (file.endsWith('.md'))
        for (const token of tokenize(readFileSync(join(REPO_ROOT, file), 'utf8'))) words.add(token);
    }
    // Words that are nothing but an ending the stemmer strips, with a letter or two before them.
    for (const suffix of STEMMED_ENDINGS)
      for (const before of ['', 'a', 'y', 'st', 'tr']) words.add(before + suffix);
    expect(words.size).toBeGreaterThan(2000);
    for (const word of words) {
      const term = normalizeTerm(word);
      if (term !== null) expect(term.charAt(0), word).toBe(word.charAt(0));
    }
  });

  it('passes short and non-alphabetic tokens through', () => {
    expect(stem('is')).toBe('is');
    expect(stem('v2s')).toBe('v2s');
    expect(stem('cafés')).toBe('cafés');
  });
});

describe('remember', () => {
  it('writes one file with frontmatter and one index line', async () => {
    const dir = home();
    const before = readFileSync(join(dir, 'memory', 'MEMORY.md'), 'utf8').split('\n').length;
    const out = await remember(dir, {
      content: 'Bob drinks green tea, never coffee.',
      type: 'user',
      name: 'Bob tea',
      tags: ['people'],
      applies_to: ['order_drink*'],
    });
    expect(out).toMatchObject({ file: 'user_bob_tea.md', replaced: false, type: 'user' });
    const fm = parseFrontmatter(readFileSync(join(dir, 'memory', out.file), 'utf8'));
    expect(fm.error).toBeUndefined();
    expect(fm.data).toMatchObject({
      name: 'Bob tea',
      type: 'user',
      tags: ['people'],
      applies_to: ['order_drink*'],
    });
    expect(fm.data.description).toBe('Bob drinks green tea, never coffee.');
    const index = readFileSync(join(dir, 'memory', 'MEMORY.md'), 'utf8');
    expect(index.split('\n').length).toBe(before + 1);
    expect(index).toContain('- [Bob tea](user_bob_tea.md) - Bob drinks green tea, never coffee.');
  });

  it('refuses an existing name unless replace is true, and replaces the line in place', async () => {
    const dir = home();
    await expect(
      remember(dir, { content: 'x', type: 'caution', name: 'Force push caution' }),
    ).rejects.toMatchObject({
      code: 'MEMORY_EXISTS',
    });
    const out = await remember(dir, {
      content: 'Never force-push anything shared.',
      type: 'caution',
      name: 'Force push caution',
      description: 'updated',
      replace: true,
    });
    // An existing name keeps its file, wherever the slug would have pointed.
    expect(out).toMatchObject({ file: 'caution_force_push.md', replaced: true });
    const index = readFileSync(join(dir, 'memory', 'MEMORY.md'), 'utf8');
    expect(index.match(/caution_force_push\.md/g)).toHaveLength(1);
    expect(index).toContain('- [Force push caution](caution_force_push.md) - updated');
  });

  it('refuses a name held only by a memory frontmatter (no MEMORY.md line), case-insensitively', async () => {
    const dir = home();
    // examples/home's running_commitments.md is named "Running commitments" and has no index line.
    expect(readFileSync(join(dir, 'memory', 'MEMORY.md'), 'utf8')).not.toContain('Running commitments');
    await expect(
      remember(dir, { content: 'x', type: 'note', name: 'running COMMITMENTS' }),
    ).rejects.toMatchObject({
      code: 'MEMORY_EXISTS',
      message: expect.stringContaining('running_commitments.md'),
    });
    const out = await remember(dir, {
      content: '- Ship the consumer',
      type: 'project',
      name: 'Running commitments',
      replace: true,
    });
    expect(out).toMatchObject({ file: 'running_commitments.md', replaced: true });
    expect(readFileSync(join(dir, 'memory', 'MEMORY.md'), 'utf8')).toContain(
      '- [Running commitments](running_commitments.md)',
    );
  });

  it('keeps the original created date when replacing', async () => {
    const dir = home();
    await remember(
      dir,
      { content: 'v1', type: 'note', name: 'Dated' },
      { now: new Date('2026-01-02T03:04:05Z') },
    );
    await remember(
      dir,
      { content: 'v2', type: 'note', name: 'Dated', replace: true },
      { now: new Date('2026-03-04T05:06:07Z') },
    );
    const fm = parseFrontmatter(readFileSync(join(dir, 'memory', 'note_dated.md'), 'utf8'));
    expect(fm.data).toMatchObject({
      created: '2026-01-02T03:04:05.000Z',
      updated: '2026-03-04T05:06:07.000Z',
    });
    expect(fm.body.trim()).toBe('v2');
  });

  it('rejects empty content, bad types and bad globs with a hint', async () => {
    const dir = home();
    await expect(remember(dir, { content: '  ', type: 'note' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(remember(dir, { content: 'x', type: '../x' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    await expect(remember(dir, { content: 'x', type: 'index' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});

describe('MemoryStore after remember', () => {
  const viewOf = (store: MemoryStore) => {
    const { entries, problems } = store.snapshot();
    return { entries, problems };
  };

  it('takes its own writes in without a rescan, and holds what a rescan would', async () => {
    const dir = home();
    const mem = join(dir, 'memory');
    const store = new MemoryStore(mem);
    const before = store.snapshot();
    await remember(dir, { content: 'First.', type: 'note', name: 'Aardvark' }, { store });
    await remember(dir, { content: 'Second.', type: 'user', name: 'Zebra' }, { store });
    await remember(dir, { content: 'Again.', type: 'note', name: 'aardvark', replace: true }, { store });
    const after = store.snapshot();
    expect(after.version).not.toBe(before.version);
    expect(after.entries.map((e) => e.file)).toEqual(
      expect.arrayContaining(['note_aardvark.md', 'user_zebra.md', 'MEMORY.md']),
    );
    // Entries, their order and the index file's stat are what a fresh store reads from disk.
    expect(viewOf(store)).toEqual(viewOf(new MemoryStore(mem)));
    expect(store.fileNamed('ZEBRA')).toBe('user_zebra.md');
    expect(store.fileNamed('Running commitments')).toBe('running_commitments.md');
    expect(store.fileNamed('nobody')).toBeUndefined();
  });

  it('patches its snapshot with the files it wrote instead of rescanning memory/', async () => {
    const dir = home();
    const mem = join(dir, 'memory');
    const store = new MemoryStore(mem);
    store.snapshot();
    // An in-place edit moves no directory mtime, so only a full rescan would see it.
    const file = join(mem, 'running_commitments.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^name: .*$/m, 'name: Renamed by hand'));
    await remember(dir, { content: 'Mine.', type: 'note', name: 'Mine' }, { store });
    expect(store.fileNamed('mine')).toBe('note_mine.md');
    expect(store.fileNamed('Running commitments')).toBe('running_commitments.md');
    expect(store.fileNamed('Renamed by hand')).toBeUndefined();
    expect(new MemoryStore(mem).fileNamed('Renamed by hand')).toBe('running_commitments.md');
  });

  it('rescans when memory/ changed by another hand before the write', async () => {
    const dir = home();
    const mem = join(dir, 'memory');
    const store = new MemoryStore(mem);
    store.snapshot();
    writeFileSync(join(mem, 'hand_written.md'), '---\nname: Hand written\ntype: note\n---\nby hand\n');
    await remember(dir, { content: 'Mine.', type: 'note', name: 'Mine' }, { store });
    expect(store.fileNamed('hand written')).toBe('hand_written.md');
    expect(viewOf(store)).toEqual(viewOf(new MemoryStore(mem)));
  });

  it('re-reads a file a watcher names when it is edited in place', async () => {
    const dir = home();
    const mem = join(dir, 'memory');
    const store = new MemoryStore(mem, { watch: true });
    try {
      expect(store.fileNamed('Alex Rivera')).toBe('user_alex.md');
      const text = readFileSync(join(mem, 'user_alex.md'), 'utf8');
      writeFileSync(join(mem, 'user_alex.md'), text.replace('name: Alex Rivera', 'name: Alexandra Rivera'));
      const deadline = Date.now() + 15_000;
      while (store.fileNamed('Alexandra Rivera') === undefined && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(store.fileNamed('Alexandra Rivera')).toBe('user_alex.md');
      expect(store.fileNamed('Alex Rivera')).toBeUndefined();
      expect(viewOf(store)).toEqual(viewOf(new MemoryStore(mem)));
    } finally {
      store.close();
    }
  });
});

describe('MemoryStore overview (what the packet shows of memory/)', () => {
  /** memory/ last changed a minute ago: a scan now may key the persisted overview on its mtime. */
  function settled(dir: string) {
    const mem = join(dir, 'memory');
    const past = new Date(Date.now() - 60_000);
    utimesSync(mem, past, past);
    const files = {
      overviewFile: join(dir, 'cache', 'memory-overview.json'),
      manifestFile: join(dir, 'cache', 'memory-manifest.json'),
    };
    return { mem, files, overviewFile: files.overviewFile };
  }

  it('a quick look in a fresh process reads the overview the last scan persisted while memory/ is unchanged', () => {
    const { mem, files, overviewFile } = settled(home());
    const scanned = new MemoryStore(mem, files).overview();
    expect(scanned.people.map((p) => p.name)).toContain('Alex Rivera');
    expect(existsSync(overviewFile)).toBe(true);
    expect(new MemoryStore(mem, files).overview({ quick: true })).toEqual(scanned);

    // An edit in place leaves memory/'s mtime alone: a quick look keeps the last scan's view
    // until any full scan (every server's first packet) sees the file's own mtime move.
    const file = join(mem, 'user_alex.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace('name: Alex Rivera', 'name: Alexandra Rivera'));
    const quick = () => new MemoryStore(mem, files).overview({ quick: true });
    expect(quick().people.map((p) => p.name)).toContain('Alex Rivera');
    const rescanned = new MemoryStore(mem, files).overview();
    expect(rescanned.people.map((p) => p.name)).toContain('Alexandra Rivera');
    expect(quick()).toEqual(rescanned);
  });

  it('after memory/ changed, a quick look stats each file against its manifest and re-reads what moved', () => {
    const { mem, files } = settled(home());
    const quick = () => new MemoryStore(mem, files).overview({ quick: true });
    const before = quick(); // no manifest yet: a full scan, which writes one
    expect(existsSync(files.manifestFile)).toBe(true);
    writeFileSync(join(mem, 'user_zoe.md'), '---\nname: Zoe\ntype: user\ndescription: new here\n---\nhi\n');
    const added = quick();
    expect(added.catalog.total_count).toBe(before.catalog.total_count + 1);
    expect(added.people.map((p) => p.name)).toContain('Zoe');
    expect(added).toEqual(new MemoryStore(mem).overview());
    // Replaced by a rename (as remember writes): the names in memory/ are the same as before.
    const alex = join(mem, 'user_alex.md');
    writeFileSync(`${alex}.tmp`, readFileSync(alex, 'utf8').replace('type: user', 'type: project'));
    renameSync(`${alex}.tmp`, alex);
    rmSync(join(mem, 'user_zoe.md'));
    const replaced = quick();
    expect(replaced.people.map((p) => p.name)).toEqual(['Sam Okafor']);
    expect(replaced).toEqual(new MemoryStore(mem).overview());
  });

  it('persists no overview counted right after memory/ changed (a coarse mtime could hide a later change)', () => {
    const { mem, files, overviewFile } = settled(home());
    new MemoryStore(mem, files).overview();
    expect(existsSync(overviewFile)).toBe(true);
    writeFileSync(join(mem, 'note_fresh.md'), '---\nname: Fresh\ntype: note\n---\njust now\n');
    new MemoryStore(mem, files).overview();
    expect(existsSync(overviewFile)).toBe(false);
    new MemoryStore(mem, files).overview({ quick: true });
    expect(existsSync(overviewFile)).toBe(false);
  });

  it('a quick packet equals the full one', async () => {
    const dir = home();
    settled(dir);
    const clock = () => new Date('2026-11-20T10:00:00Z');
    const packet = async (quickMemoryOverview: boolean) => {
      const mind = createMind({ home: dir, clock, quickMemoryOverview });
      try {
        return await mind.bootstrap({ sessionId: 's', preview: true });
      } finally {
        mind.close();
      }
    };
    const full = await packet(false);
    expect(existsSync(join(dir, 'cache', 'memory-overview.json'))).toBe(true);
    expect(await packet(true)).toEqual(full);
  });
});

describe('RecallIndex', () => {
  it('ranks by BM25 with an excerpt around the match and demotes superseded memories', () => {
    const dir = home();
    const out = indexFor(dir).recall('what is the pricing cache TTL', { k: 3 });
    expect(out.results[0]).toMatchObject({ name: 'Cache TTL now', type: 'note', file: 'note_cache_ttl.md' });
    expect(out.results[1]!.name).toBe('Old cache decision');
    expect(out.results[0]!.excerpt).toMatch(/60 seconds/);
    expect(out.results[0]!.score).toBeGreaterThan(out.results[1]!.score);
  });

  it('filters by a facet on a frontmatter field or a tag', () => {
    const dir = home();
    const index = indexFor(dir);
    const byType = index.recall('portal', { k: 10, facet: 'type:session_digest' });
    expect(byType.results.map((r) => r.type)).toEqual(['session_digest']);
    const byField = index.recall('portal lead', { facet: 'relationship:colleague' });
    expect(byField.results.map((r) => r.name)).toEqual(['Alex Rivera']);
    const byTag = index.recall('never', { facet: 'tag:safety' });
    expect(byTag.results.map((r) => r.name)).toEqual(['Force push caution']);
    expect(() => index.recall('x', { facet: 'nocolon' })).toThrow(/key:value/);
  });

  it('refreshes incrementally: another writer is visible, unchanged files are not re-read', async () => {
    const dir = home();
    const index = indexFor(dir);
    index.recall('cache');
    const first = index.stats();
    expect(first.filesRead).toBe(first.documents);
    index.recall('deploy');
    expect(index.stats().filesRead).toBe(first.filesRead);
    // Another process's store and write path.
    await remember(dir, {
      content: 'The zanzibar cluster hosts billing.',
      type: 'reference',
      name: 'Zanzibar',
    });
    const found = index.recall('zanzibar');
    expect(found.results[0]?.name).toBe('Zanzibar');
    expect(index.stats().filesRead).toBe(first.filesRead + 1);
    // A fresh process loads the persisted index and reads no memory file at all.
    index.close();
    const cold = indexFor(dir);
    expect(cold.recall('zanzibar').results[0]?.name).toBe('Zanzibar');
    expect(cold.stats().filesRead).toBe(0);
  });

  it('skips and reports malformed files (bad YAML, binary, huge) without failing', () => {
    const dir = home();
    const mem = join(dir, 'memory');
    writeFileSync(join(mem, 'bad_yaml.md'), '---\nname: [unclosed\n---\nbody cache\n');
    writeFileSync(join(mem, 'binary.md'), Buffer.from([0x2d, 0x00, 0x01, 0x02, 0x63]));
    writeFileSync(join(mem, 'huge.md'), `---\nname: huge\n---\n${'cache '.repeat(300_000)}`);
    writeFileSync(join(mem, 'unclosed.md'), '---\nname: Unclosed\ntype: note\nthe cache body never starts\n');
    // An unclosed block is found even past the 16 KB head read for frontmatter.
    writeFileSync(join(mem, 'unclosed_long.md'), `---\nname: Long\n${'tags_x: cache\n'.repeat(2_000)}`);
    const out = indexFor(dir, false).recall('cache');
    expect(out.results.length).toBeGreaterThan(0);
    const skipped = Object.fromEntries(out.skipped.map((s) => [s.file, s.problem]));
    expect(Object.keys(skipped).sort()).toEqual([
      'bad_yaml.md',
      'binary.md',
      'huge.md',
      'unclosed.md',
      'unclosed_long.md',
    ]);
    expect(skipped['binary.md']).toMatch(/binary/);
    expect(skipped['huge.md']).toMatch(/too large/);
    expect(skipped['bad_yaml.md']).toMatch(/YAML/);
    expect(skipped['unclosed.md']).toMatch(/frontmatter never closes/);
    expect(skipped['unclosed_long.md']).toMatch(/frontmatter never closes/);
  });

  it('does not follow a symlink out of memory/: the file is skipped and reported', () => {
    const dir = home();
    const mem = join(dir, 'memory');
    writeFileSync(join(dir, 'secret.md'), '---\nname: Outside secret\ntype: note\n---\nkumquat password\n');
    symlinkSync(join(dir, 'secret.md'), join(mem, 'escape.md'));
    symlinkSync(join(mem, 'user_alex.md'), join(mem, 'alias.md'));
    const out = indexFor(dir).recall('kumquat alex');
    expect(out.results.map((r) => r.file)).not.toContain('escape.md');
    expect(out.results.map((r) => r.file)).toContain('alias.md');
    expect(out.skipped).toEqual([{ file: 'escape.md', problem: 'symlink whose target is outside memory/' }]);
    expect(new MemoryStore(mem).snapshot().entries.map((e) => e.file)).not.toContain('escape.md');
  });

  it('returns nothing for a query of stop words only, and validates k', () => {
    const dir = home();
    const index = indexFor(dir, false);
    expect(index.recall('the of and').results).toEqual([]);
    expect(() => index.recall('cache', { k: 0 })).toThrow(/k must be/);
  });
});

describe('parseFacet', () => {
  it('lower-cases both sides', () => {
    expect(parseFacet('Type:Feedback')).toEqual({ key: 'type', value: 'feedback' });
  });
});

describe('recall: time phrases and the saved index', () => {
  it('ranks the memories about the time a query names above others that mention the month', async () => {
    const dir = home();
    await remember(dir, { content: 'Moved the lease talks to October.', type: 'note', name: 'Lease note' });
    await remember(dir, {
      content: 'Wrapped the retry refactor.',
      type: 'session_digest',
      name: 'Session 2026-10-03',
    });
    await remember(dir, { content: 'Queue lag fixed.', type: 'session_digest', name: 'Session 2026-10-22' });
    const out = indexFor(dir, false).recall('what did we do in early October');
    expect(out.results[0]?.name).toBe('Session 2026-10-03');
    expect(out.results.map((r) => r.name)).not.toContain('Session 2026-10-22');
  });

  it("saves a mind's index under cache/ (recall-index.log beside the snapshot)", () => {
    const dir = home();
    const mind = createMind({ home: dir });
    const index = openRecallIndex(mind);
    expect(index.recall('deploy freeze').results.length).toBeGreaterThan(0);
    index.close();
    mind.close();
    expect(readFileSync(join(dir, 'cache', 'recall-index.log'), 'utf8')).toMatch(/^\{"format":\d+,"log":/);
    expect(openRecallIndex(createMind({ home: dir })).stats().filesRead).toBe(0);
  });

  it('a fresh process answers from the saved index like the process that built it', () => {
    const dir = home();
    const built = indexFor(dir);
    const warm = built.recall('deploy freeze fridays', { k: 3 });
    built.close();
    const cold = indexFor(dir).recall('deploy freeze fridays', { k: 3 });
    expect(cold.results.map((r) => [r.file, r.score])).toEqual(warm.results.map((r) => [r.file, r.score]));
    expect(cold.indexed).toBe(warm.indexed);
  });
});
