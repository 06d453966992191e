/**
 * Memory in and out through the built CLI: an export imported into an empty home gives the same
 * bytes (JSONL and tarball); a basic-memory style folder of 50 notes and a Claude Code
 * auto-memory folder import with the table (added, duplicate, refused and why), dry run first.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exampleHomeCopy, run, runCli, tempDir, tempHome } from '../helpers/index.js';

interface PlanJson {
  kind: string;
  rows: { source: string; action: string; file: string | null; type: string | null; reason: string }[];
  counts: { add: number; duplicate: number; refused: number };
  applied: { written: string[] } | null;
}

function filesOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.')) continue;
    out[name] = readFileSync(join(dir, name), 'latin1');
  }
  return out;
}

describe('memory export → import', () => {
  const source = exampleHomeCopy();
  const work = tempDir();
  afterAll(() => {
    source.dispose();
    work.dispose();
  });

  it.each(['jsonl', 'tar.gz', 'tar'])(
    'gives byte-identical memory files in an empty home (%s)',
    async (format) => {
      const out = join(work.dir, `memories.${format}`);
      const exported = await runCli(['memory', 'export', '--home', source.dir, '--out', out, '--json']);
      expect(exported.status, exported.stderr).toBe(0);
      expect(JSON.parse(exported.stdout)).toMatchObject({ format, count: 14 });
      const target = tempHome();
      try {
        rmSync(join(target.dir, 'memory'), { recursive: true, force: true });
        mkdirSync(join(target.dir, 'memory'));
        const dry = await runCli(['memory', 'import', out, '--home', target.dir]);
        expect(dry.status, dry.stderr).toBe(0);
        expect(dry.stdout).toMatch(/: 14 to add, 0 duplicate, 0 refused/);
        expect(dry.stdout).toContain('dry run: nothing written');
        expect(readdirSync(join(target.dir, 'memory'))).toEqual([]);
        const applied = await runCli(['memory', 'import', out, '--home', target.dir, '--apply']);
        expect(applied.status, applied.stderr).toBe(0);
        expect(applied.stdout).toContain('wrote 14 memories');
        expect(filesOf(join(target.dir, 'memory'))).toEqual(filesOf(join(source.dir, 'memory')));
        // A second import finds every one already there.
        const again = JSON.parse(
          (await runCli(['memory', 'import', out, '--home', target.dir, '--apply', '--json'])).stdout,
        ) as PlanJson;
        expect(again.counts).toEqual({ add: 0, duplicate: 14, refused: 0 });
        expect(again.rows[0]?.reason).toMatch(/holds the same bytes/);
      } finally {
        target.dispose();
      }
    },
  );

  it('writes JSONL a reader can use without firstlight: frontmatter, body and the exact text', async () => {
    const out = await runCli(['memory', 'export', '--home', source.dir]);
    const [header, ...records] = out.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(header).toMatchObject({
      firstlight_memory_export: 1,
      count: 14,
      index_header: '# Memory index\n',
    });
    const alex = records.find((r) => r.file === 'user_alex.md');
    expect(alex.frontmatter).toMatchObject({ name: 'Alex Rivera', type: 'user' });
    expect(alex.text).toBe(readFileSync(join(source.dir, 'memory', 'user_alex.md'), 'utf8'));
    expect(alex.index_line).toMatch(/^- \[Alex Rivera\]\(user_alex\.md\)/);
  });

  it('refuses a tarball to a terminal-less mistake, a bad format, and a record that is not a memory', async () => {
    const bad = await runCli(['memory', 'export', '--home', source.dir, '--format', 'zip']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--format must be jsonl, tar or tar.gz');
    const file = join(work.dir, 'broken.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ firstlight_memory_export: 1, count: 2, index_header: '' })}\n${JSON.stringify({ file: '../escape.md', text: '---\nname: x\ntype: note\n---\nx\n' })}\n${JSON.stringify({ file: 'note_x.md', text: 'no frontmatter' })}\n`,
    );
    const target = tempHome();
    try {
      const plan = JSON.parse(
        (await runCli(['memory', 'import', file, '--home', target.dir, '--json'])).stdout,
      ) as PlanJson;
      expect(plan.rows.map((r) => [r.action, r.reason])).toEqual([
        ['refused', 'unsafe file name "../escape.md"'],
        ['refused', 'frontmatter: missing (the file must start with a --- line)'],
      ]);
    } finally {
      target.dispose();
    }
  });
});

describe('memory import of a path that is not there (issue 38)', () => {
  it('says it does not exist, not that it is the wrong kind', async () => {
    const target = tempHome();
    try {
      const r = await runCli(['memory', 'import', '/no/such/path', '--home', target.dir]);
      expect(r.status).toBe(2);
      expect(r.stderr).toContain('/no/such/path: no such file or folder');
      expect(r.stderr).not.toContain('not a folder');
    } finally {
      target.dispose();
    }
  });
});

describe('memory import of a note with no frontmatter (issue 38)', () => {
  it('names it from its opening H1, as Obsidian shows it, and describes it from the text below', async () => {
    const target = tempHome();
    const notes = tempDir('firstlight-notes-');
    try {
      writeFileSync(
        join(notes.dir, 'caching.md'),
        '# Caching decision\n\nWe cache quotes for five minutes. The upstream rate-limits us.\n',
      );
      const r = await runCli(['memory', 'import', notes.dir, '--home', target.dir, '--apply', '--json']);
      expect(r.status, r.stderr).toBe(0);
      const plan = JSON.parse(r.stdout) as PlanJson;
      expect(plan.rows.map((row) => [row.action, row.file])).toEqual([['add', 'note_caching_decision.md']]);
      const text = readFileSync(join(target.dir, 'memory', 'note_caching_decision.md'), 'utf8');
      expect(text).toContain('name: "Caching decision"');
      expect(text).toContain('description: "We cache quotes for five minutes."');
    } finally {
      target.dispose();
      notes.dispose();
    }
  });
});

/** 50 notes in basic-memory's format: title/type/permalink/tags frontmatter, observations and relations. */
function basicMemoryFolder(dir: string): void {
  const kinds = ['note', 'person', 'decision', 'reference', 'meeting'];
  for (let i = 0; i < 50; i++) {
    const kind = kinds[i % kinds.length]!;
    const folder = join(dir, kind === 'person' ? 'people' : kind === 'decision' ? 'decisions' : 'notes');
    mkdirSync(folder, { recursive: true });
    const title = `${kind[0]!.toUpperCase()}${kind.slice(1)} ${i}: ${['billing retries', 'queue lag', 'cache TTL', 'release train', 'on-call rota'][i % 5]} ${i}`;
    writeFileSync(
      join(folder, `${kind}-${i}.md`),
      [
        '---',
        `title: "${title}"`,
        `type: ${kind}`,
        `permalink: ${kind}/${kind}-${i}`,
        `tags: [${kind}, batch-${i % 3}]`,
        `created: 2026-0${1 + (i % 9)}-1${i % 10}`,
        '---',
        '',
        `# ${title}`,
        '',
        `- [fact] Observation number ${i} about ${kind} work #${kind}`,
        `- relates_to [[${kinds[(i + 1) % kinds.length]} ${i + 1}]]`,
        '',
      ].join('\n'),
    );
  }
}

describe('memory import from a folder of markdown notes', () => {
  const home = tempHome();
  const notes = tempDir('firstlight-notes-');
  afterAll(() => {
    home.dispose();
    notes.dispose();
  });

  it('imports a basic-memory folder of 50 notes with the table: types mapped, frontmatter kept, duplicates and refusals named', async () => {
    basicMemoryFolder(notes.dir);
    // Three notes the table must not add: a copy of another note's text, an empty one, bad YAML.
    writeFileSync(
      join(notes.dir, 'notes', 'copy-of-0.md'),
      readFileSync(join(notes.dir, 'notes', 'note-0.md'), 'utf8').replace('title: "Note 0', 'title: "Copy 0'),
    );
    writeFileSync(join(notes.dir, 'notes', 'empty.md'), '---\ntitle: Empty\n---\n\n');
    writeFileSync(join(notes.dir, 'notes', 'broken.md'), '---\ntitle: [unclosed\n---\nbody\n');
    writeFileSync(join(notes.dir, 'image.png'), 'not a note');
    const dry = await runCli(['memory', 'import', notes.dir, '--home', home.dir]);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^action +source +memory \/ why$/m);
    expect(dry.stdout).toMatch(
      /^add +people\/person-1\.md +memory\/user_person_1_queue_lag_1\.md \(user\) "Person 1: queue lag 1"$/m,
    );
    expect(dry.stdout).toMatch(/: 50 to add, 1 duplicate, 2 refused; 1 other file\(s\) ignored/);
    // The copy sorts first, so the original is the one found a duplicate of it.
    expect(dry.stdout).toMatch(
      /^duplicate +notes\/note-0\.md +same text as memory\/note_copy_0_billing_retries_0\.md$/m,
    );
    expect(dry.stdout).toMatch(/^refused +notes\/empty\.md +empty note/m);
    expect(dry.stdout).toMatch(/^refused +notes\/broken\.md +frontmatter: frontmatter is not valid YAML/m);
    expect(readdirSync(join(home.dir, 'memory'))).toEqual(['MEMORY.md']);

    const applied = JSON.parse(
      (await runCli(['memory', 'import', notes.dir, '--home', home.dir, '--apply', '--json'])).stdout,
    ) as PlanJson;
    expect(applied.applied?.written).toHaveLength(50);
    const types = new Map<string, number>();
    for (const r of applied.rows.filter((r) => r.action === 'add'))
      types.set(r.type!, (types.get(r.type!) ?? 0) + 1);
    expect(Object.fromEntries(types)).toEqual({ note: 20, user: 10, project: 10, reference: 10 });
    const person = readFileSync(join(home.dir, 'memory', 'user_person_1_queue_lag_1.md'), 'utf8');
    expect(person).toContain('name: "Person 1: queue lag 1"');
    expect(person).toContain('tags: ["person","batch-1"]');
    expect(person).toContain('permalink: "person/person-1"');
    expect(person).toContain('source_type: "person"');
    expect(person).toContain('imported_from: "folder:people/person-1.md"');
    expect(person).toContain('- [fact] Observation number 1 about person work #person');
    const meeting = readFileSync(join(home.dir, 'memory', 'note_meeting_4_on_call_rota_4.md'), 'utf8');
    expect(meeting).toContain('source_type: "meeting"');
    const index = readFileSync(join(home.dir, 'memory', 'MEMORY.md'), 'utf8');
    expect(index.match(/^- \[/gm)).toHaveLength(50);
    // Recall finds them at once.
    const found = JSON.parse((await runCli(['recall', 'queue', 'lag', '--home', home.dir, '--json'])).stdout);
    expect(found.results.length).toBeGreaterThan(0);
  });
});

describe("memory import from Claude Code's auto-memory", () => {
  const home = tempHome();
  const claudeConfig = tempDir('firstlight-claude-');
  const work = tempDir('firstlight-proj-');
  afterAll(() => {
    home.dispose();
    claudeConfig.dispose();
    work.dispose();
  });

  it("finds the project's auto-memory where Claude Code keeps it and imports it into the project", async () => {
    const project = join(work.dir, 'my.app');
    mkdirSync(project);
    await run('git', ['init', '-q'], { cwd: project });
    // Claude Code: <config>/projects/<the git root with every non-alphanumeric character as ->/memory/
    const dir = join(claudeConfig.dir, 'projects', project.replace(/[^a-zA-Z0-9]/g, '-'), 'memory');
    mkdirSync(dir, { recursive: true });
    const note = (file: string, name: string, type: string, description: string, body: string) =>
      writeFileSync(
        join(dir, file),
        `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n\n${body}\n`,
      );
    note(
      'user_role.md',
      'User role',
      'user',
      'Data scientist focused on observability',
      'The user is a data scientist working on logging.',
    );
    note(
      'feedback_testing.md',
      'Testing policy',
      'feedback',
      'Integration tests hit a real database',
      'Integration tests must hit a real database, not mocks.\n\n**Why:** mocked tests passed while a migration failed.',
    );
    note(
      'project_freeze.md',
      'Merge freeze',
      'project',
      'Merge freeze begins 2026-03-05',
      'Merge freeze begins 2026-03-05 for the mobile release cut.',
    );
    note(
      'reference_linear.md',
      'Linear project',
      'reference',
      'Pipeline bugs live in Linear INGEST',
      'Pipeline bugs are tracked in the Linear project "INGEST".',
    );
    writeFileSync(
      join(dir, 'MEMORY.md'),
      '- [User role](user_role.md) — data scientist\n- [Testing policy](feedback_testing.md) — real database\n- [Merge freeze](project_freeze.md) — 2026-03-05\n- [Linear project](reference_linear.md) — INGEST\n',
    );
    const env = { CLAUDE_CONFIG_DIR: claudeConfig.dir };
    const dry = await runCli(['memory', 'import', 'claude', '--home', home.dir], { cwd: project, env });
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`Claude Code's auto-memory ${dir}: 4 to add, 0 duplicate, 0 refused`);
    expect(dry.stdout).toMatch(
      /^add +feedback_testing\.md +memory\/feedback_testing_policy\.md \(feedback\) "Testing policy"$/m,
    );
    const applied = await runCli(['memory', 'import', 'claude', '--home', home.dir, '--apply'], {
      cwd: project,
      env,
    });
    expect(applied.stdout).toContain('wrote 4 memories');
    expect(applied.stdout).toContain('added to project my.app');
    const listed = JSON.parse(
      (await runCli(['memory', 'list', '--project', '--home', home.dir, '--json'], { cwd: project })).stdout,
    );
    expect(listed.memories.map((m: { type: string }) => m.type).sort()).toEqual([
      'feedback',
      'project',
      'reference',
      'user',
    ]);
    // Outside the project they are out of sight.
    const elsewhere = JSON.parse(
      (await runCli(['memory', 'list', '--home', home.dir, '--json'], { cwd: work.dir })).stdout,
    );
    expect(elsewhere.memories).toEqual([]);
    expect(elsewhere.other_projects).toBe(4);
    // No project in a directory without git: refused with the fix.
    const none = await runCli(['memory', 'import', 'claude', '--home', home.dir], { cwd: work.dir, env });
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('no Claude Code auto-memory for this project');
  });
});
