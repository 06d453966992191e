/**
 * Managing the mind without raw files, through the built CLI and a real MCP client: memory
 * list/show/edit/forget/restore, sessions, events, status, and the closed list of memory types.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleHomeCopy, runCli, structured, tempDir, textOf, wireStdio } from '../helpers/index.js';

/** Each test runs a dozen or more CLI processes: on a loaded machine that takes a while. */
const TIMEOUT = 180_000;
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

function home(): string {
  const h = exampleHomeCopy();
  cleanup.push(h.dispose);
  return h.dir;
}

function scratch(): string {
  const t = tempDir('firstlight-manage-');
  cleanup.push(t.dispose);
  return t.dir;
}

/** A scripted $EDITOR: a shell script that edits the file it is given. */
function editor(dir: string, name: string, script: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${script}\n`);
  chmodSync(path, 0o755);
  return path;
}

type Hits = { results: { name: string; file: string }[] };
const recallNames = async (dir: string, query: string) =>
  (
    JSON.parse((await runCli(['recall', query, '--k', '10', '--home', dir, '--json'])).stdout) as Hits
  ).results.map((r) => r.name);

describe('firstlight memory forget / restore', { timeout: TIMEOUT }, () => {
  it('round-trips a memory byte for byte, index line included; recall stops and restarts finding it', async () => {
    const dir = home();
    const file = join(dir, 'memory', 'note_cache_ttl_old.md');
    const index = join(dir, 'memory', 'MEMORY.md');
    const before = { file: readFileSync(file), index: readFileSync(index) };
    expect(await recallNames(dir, 'cache TTL 5 minutes')).toContain('Old cache decision');

    const forgot = await runCli(['memory', 'forget', 'Old cache decision', '--home', dir, '--json']);
    expect(forgot.status, forgot.stderr).toBe(0);
    expect(JSON.parse(forgot.stdout)).toEqual({
      ok: true,
      name: 'Old cache decision',
      type: 'note',
      file: 'note_cache_ttl_old.md',
      trashed_as: 'note_cache_ttl_old.md',
      index_line_removed: true,
    });
    expect(existsSync(file)).toBe(false);
    expect(readFileSync(join(dir, 'memory', '.trash', 'note_cache_ttl_old.md'))).toEqual(before.file);
    expect(readFileSync(index, 'utf8')).not.toContain('note_cache_ttl_old.md');
    expect(await recallNames(dir, 'cache TTL 5 minutes')).not.toContain('Old cache decision');
    const listed = JSON.parse((await runCli(['memory', 'list', '--home', dir, '--json'])).stdout) as {
      memories: { file: string }[];
    };
    expect(listed.memories.map((m) => m.file)).not.toContain('note_cache_ttl_old.md');
    const forgotten = JSON.parse(
      (await runCli(['memory', 'list', '--forgotten', '--home', dir, '--json'])).stdout,
    ) as {
      forgotten: { name: string; file: string; index_line: string }[];
    };
    expect(forgotten.forgotten).toEqual([
      expect.objectContaining({ name: 'Old cache decision', file: 'note_cache_ttl_old.md' }),
    ]);

    const human = await runCli(['memory', 'restore', 'old cache decision', '--home', dir]);
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toBe('firstlight: restored "Old cache decision" to memory/note_cache_ttl_old.md\n');
    expect(readFileSync(file)).toEqual(before.file);
    expect(readFileSync(index)).toEqual(before.index);
    expect(await recallNames(dir, 'cache TTL 5 minutes')).toContain('Old cache decision');
    expect(
      JSON.parse((await runCli(['memory', 'list', '--forgotten', '--home', dir, '--json'])).stdout),
    ).toEqual({
      ok: true,
      forgotten: [],
    });
  });

  it('an unknown name exits 2 with the fix; restoring over a new memory of the same name is refused', async () => {
    const dir = home();
    const unknown = await runCli(['memory', 'forget', 'no such memory', '--home', dir]);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/no memory named "no such memory"\n {2}fix: .*firstlight memory list/);
    const json = await runCli(['memory', 'restore', 'nothing', '--home', dir, '--json']);
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    const path = await runCli(['memory', 'forget', '../persona/agent_system.md', '--home', dir]);
    expect(path.status).toBe(2);
    expect(path.stderr).toMatch(/without a path/);

    const sam = join(dir, 'memory', 'user_sam.md');
    expect((await runCli(['memory', 'forget', 'user_sam', '--home', dir])).status).toBe(0);
    const again = await runCli(['remember', '--type', 'user', '--name', 'Sam Okafor', '--home', dir], {
      input: 'Sam moved to the data team.',
    });
    expect(again.status, again.stderr).toBe(0);
    const clash = await runCli(['memory', 'restore', 'user_sam', '--home', dir]);
    expect(clash.status).toBe(2);
    expect(clash.stderr).toMatch(
      /a memory named "Sam Okafor" exists again \(user_sam_okafor\.md\)\n {2}fix: /,
    );
    expect((await runCli(['memory', 'forget', 'Sam Okafor', '--home', dir])).status).toBe(0);

    // A second user_sam.md, forgotten too, takes the next free trash name; the newest is restored.
    writeFileSync(sam, '---\nname: Sam O.\ntype: user\n---\nA second Sam.\n');
    expect((await runCli(['memory', 'forget', 'user_sam.md', '--home', dir])).status).toBe(0);
    const trash = JSON.parse(
      (await runCli(['memory', 'list', '--forgotten', '--home', dir, '--json'])).stdout,
    ) as {
      forgotten: { trashed_as: string }[];
    };
    expect(trash.forgotten.map((r) => r.trashed_as).sort()).toEqual([
      'user_sam.md',
      'user_sam_okafor.md',
      'user_sam~2.md',
    ]);
    expect((await runCli(['memory', 'restore', 'user_sam', '--home', dir])).status).toBe(0);
    expect(readFileSync(sam, 'utf8')).toContain('A second Sam.');
    const occupied = await runCli(['memory', 'restore', 'user_sam', '--home', dir]);
    expect(occupied.status).toBe(2);
    expect(occupied.stderr).toMatch(/a memory file user_sam\.md exists again/);
    // By name, the newest forgotten "Sam Okafor" comes back (the other one's file is taken).
    expect((await runCli(['memory', 'restore', 'Sam Okafor', '--home', dir])).status).toBe(0);
    expect(readFileSync(join(dir, 'memory', 'user_sam_okafor.md'), 'utf8')).toContain('data team');
    expect((await runCli(['memory', 'forget', 'Sam O.', '--home', dir])).status).toBe(0);
    expect((await runCli(['memory', 'forget', 'user_sam_okafor', '--home', dir])).status).toBe(0);
    expect((await runCli(['memory', 'restore', 'user_sam~2', '--home', dir])).status).toBe(0);
    expect(readFileSync(sam, 'utf8')).toContain('A second Sam.');
    expect((await runCli(['memory', 'forget', 'user_sam~2', '--home', dir])).status).toBe(2);
  });

  it('over MCP: forget_memory and restore_memory, and a running server sees a CLI forget at its next recall', async () => {
    const dir = home();
    const wired = await wireStdio(['serve', '--home', dir]);
    cleanup.push(wired.close);
    const { client } = wired;
    const call = async <T>(name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, textOf(result)).toBeFalsy();
      return structured<T>(result);
    };
    const names = async (query: string) =>
      (await call<Hits>('recall', { query, k: 10 })).results.map((r) => r.name);
    const tools = (await client.listTools()).tools;
    const forgetSpec = tools.find((t) => t.name === 'forget_memory')!;
    expect(forgetSpec.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tools.find((t) => t.name === 'restore_memory')!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
    });

    const alex = readFileSync(join(dir, 'memory', 'user_alex.md'));
    expect(await names('tech lead small PRs')).toContain('Alex Rivera');
    await call('forget_memory', { name: 'Alex Rivera' });
    expect(await names('tech lead small PRs')).not.toContain('Alex Rivera');
    const listed = await call<{ files: { name: string }[] }>('list_memory_files', { type: 'user' });
    expect(listed.files.map((f) => f.name)).toEqual(['Sam Okafor']);
    await call('restore_memory', { name: 'user_alex.md' });
    expect(readFileSync(join(dir, 'memory', 'user_alex.md'))).toEqual(alex);
    expect(await names('tech lead small PRs')).toContain('Alex Rivera');

    // Another process forgets; the server's next recall no longer finds it, then finds it again.
    expect((await runCli(['memory', 'forget', 'Deploy freeze', '--home', dir])).status).toBe(0);
    expect(await names('deploy freeze Friday')).not.toContain('Deploy freeze');
    expect((await runCli(['memory', 'restore', 'Deploy freeze', '--home', dir])).status).toBe(0);
    expect(await names('deploy freeze Friday')).toContain('Deploy freeze');

    const missing = await client.callTool({ name: 'forget_memory', arguments: { name: 'nobody' } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/NOT_FOUND: no memory named "nobody"[\s\S]*fix: .*list_memory_files/);
  });
});

describe('firstlight memory list / show', { timeout: TIMEOUT }, () => {
  it('lists with --type and --json; an unknown type exits 2 naming the valid ones', async () => {
    const dir = home();
    const all = await runCli(['memory', 'list', '--home', dir]);
    expect(all.status).toBe(0);
    expect(all.stdout).toMatch(/^feedback +Squash merges only — .*\(feedback_squash_merges\.md\)$/m);
    expect(all.stdout).toMatch(/^14 memories (?:global|of project)/m);
    expect(all.stdout).not.toContain('MEMORY.md');

    const { project, ...json } = JSON.parse(
      (await runCli(['memory', 'list', '--type', 'USER', '--home', dir, '--json'])).stdout,
    );
    // The runner's directory decides the project (the home's memories are global either way).
    expect(project === null || typeof project.id === 'string').toBe(true);
    expect(json).toEqual({
      ok: true,
      memories: [
        expect.objectContaining({
          file: 'user_alex.md',
          name: 'Alex Rivera',
          type: 'user',
          tags: expect.any(Array),
        }),
        expect.objectContaining({ file: 'user_sam.md', name: 'Sam Okafor', type: 'user' }),
      ],
      skipped: [],
      other_types: {},
      other_projects: 0,
    });
    expect(Object.keys(json.memories[0]).sort()).toEqual([
      'description',
      'file',
      'name',
      'project',
      'tags',
      'type',
    ]);

    const bad = await runCli(['memory', 'list', '--type', 'banana', '--home', dir]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain(
      'type: one of user, feedback, caution, project, reference, note, session, session_digest; for another kind pass custom:NAME (CLI: --type custom:banana)',
    );
  });

  it('shows a memory by name or file; --json gives {file, frontmatter, body}; an unknown name exits 2', async () => {
    const dir = home();
    const raw = readFileSync(join(dir, 'memory', 'feedback_squash_merges.md'), 'utf8');
    const human = await runCli(['memory', 'show', 'squash merges only', '--home', dir]);
    expect(human.status).toBe(0);
    expect(human.stdout).toBe(raw.endsWith('\n') ? raw : `${raw}\n`);
    const json = JSON.parse(
      (await runCli(['memory', 'show', 'feedback_squash_merges', '--home', dir, '--json'])).stdout,
    );
    expect(json).toMatchObject({
      file: 'feedback_squash_merges.md',
      frontmatter: { name: 'Squash merges only', type: 'feedback', tags: ['git', 'workflow'] },
    });
    expect(json.body).toContain('squash-merged');
    const unknown = await runCli(['memory', 'show', 'Nobody', '--home', dir, '--json']);
    expect(unknown.status).toBe(2);
    expect(JSON.parse(unknown.stdout).error).toMatchObject({
      code: 'NOT_FOUND',
      message: 'no memory named "Nobody"',
    });
    expect(unknown.stderr).toMatch(/fix: see the names with `firstlight memory list`/);
  });
});

describe('firstlight memory edit', { timeout: TIMEOUT }, () => {
  it('saves a valid edit through $EDITOR and carries a changed description into MEMORY.md', async () => {
    const dir = home();
    const bin = scratch();
    const ed = editor(
      bin,
      'ed.sh',
      `sed -i 's/^description: .*/description: Staging is rebuilt nightly at 03:00 UTC now./' "$1"\necho "Moved an hour later in December." >> "$1"`,
    );
    const index = join(dir, 'memory', 'MEMORY.md');
    const otherLines = readFileSync(index, 'utf8')
      .split('\n')
      .filter((l) => !l.includes('reference_staging_db.md'));
    const r = await runCli(['memory', 'edit', 'Staging database', '--home', dir, '--json'], {
      env: { EDITOR: ed, VISUAL: '' },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      ok: true,
      name: 'Staging database',
      type: 'reference',
      description: 'Staging is rebuilt nightly at 03:00 UTC now.',
      file: 'reference_staging_db.md',
      changed: true,
      index_line_updated: true,
    });
    const text = readFileSync(join(dir, 'memory', 'reference_staging_db.md'), 'utf8');
    expect(text).toContain('Moved an hour later in December.');
    const lines = readFileSync(index, 'utf8').split('\n');
    expect(lines).toContain(
      '- [Staging database](reference_staging_db.md) - Staging is rebuilt nightly at 03:00 UTC now.',
    );
    expect(lines.filter((l) => !l.includes('reference_staging_db.md'))).toEqual(otherLines);
    expect(await recallNames(dir, 'moved an hour later December')).toContain('Staging database');

    // $VISUAL wins over $EDITOR; an editor that changes nothing saves nothing.
    const noop = await runCli(['memory', 'edit', 'user_sam', '--home', dir], {
      env: { VISUAL: 'true', EDITOR: ed },
    });
    expect(noop.stdout).toBe('firstlight: no changes to memory/user_sam.md\n');
  });

  it('refuses a broken frontmatter naming the field, keeps the original byte for byte and the edited copy', async () => {
    const dir = home();
    const bin = scratch();
    const path = join(dir, 'memory', 'user_alex.md');
    const original = readFileSync(path);
    const cases: [string, string, RegExp][] = [
      ['unclosed.sh', `sed -i '1!s/^---$/--/' "$1"`, /frontmatter: never closes/],
      ['type.sh', `sed -i 's/^type: .*/type: banana/' "$1"`, /type: "banana" is not a memory type/],
      ['name.sh', `sed -i 's/^name: .*/name: ""/' "$1"`, /name: must be a non-empty string/],
      ['yaml.sh', `sed -i 's/^tags: .*/tags: [unclosed/' "$1"`, /frontmatter: frontmatter is not valid YAML/],
    ];
    for (const [name, script, message] of cases) {
      const r = await runCli(['memory', 'edit', 'Alex Rivera', '--home', dir], {
        env: { EDITOR: editor(bin, name, script) },
      });
      expect(r.status, `${name}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toMatch(/memory\/user_alex\.md is unchanged/);
      const kept = /your edited copy is kept at (\S+)/.exec(r.stderr)?.[1];
      expect(kept && existsSync(kept), r.stderr).toBe(true);
      expect(readFileSync(path)).toEqual(original);
    }
    // No $VISUAL, no $EDITOR and none of the fallbacks (editor, nano, vi) on PATH: the error says how.
    const none = await runCli(['memory', 'edit', 'Alex Rivera', '--home', dir], {
      env: { EDITOR: '', VISUAL: '', PATH: bin },
    });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(
      /no editor[\s\S]*none of editor, nano, vi[\s\S]*fix: set one for this command, e\.g\. EDITOR=nano/,
    );
    const failing = await runCli(['memory', 'edit', 'Alex Rivera', '--home', dir], {
      env: { EDITOR: 'false' },
    });
    expect(failing.status).toBe(1);
    expect(failing.stderr).toMatch(/exited with 1; memory\/user_alex\.md is unchanged/);
    expect(readFileSync(path)).toEqual(original);
  });

  it('with no terminal and no $EDITOR refuses before starting a fallback editor, and leaves no copy (issue 38)', async () => {
    const dir = home();
    const bin = scratch();
    const tmp = scratch();
    const path = join(dir, 'memory', 'user_alex.md');
    const original = readFileSync(path);
    // A fallback on PATH that, like vi without a terminal, fails: it must not even start.
    const started = join(bin, 'started');
    editor(bin, 'editor', `touch "${started}"; exit 1`);
    const leftovers = () => readdirSync(tmp).filter((n) => n.startsWith('firstlight-edit-'));
    const r = await runCli(['memory', 'edit', 'Alex Rivera', '--home', dir], {
      env: { EDITOR: '', VISUAL: '', PATH: `${bin}:${process.env.PATH ?? ''}`, TMPDIR: tmp },
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/no editor: \$VISUAL and \$EDITOR are unset, and with no terminal/);
    expect(existsSync(started)).toBe(false);
    expect(leftovers()).toEqual([]);
    // An editor that fails without touching the copy leaves nothing in the temp directory either.
    const failing = await runCli(['memory', 'edit', 'Alex Rivera', '--home', dir], {
      env: { EDITOR: 'false', TMPDIR: tmp },
    });
    expect(failing.status).toBe(1);
    expect(failing.stderr).not.toContain('copy');
    expect(leftovers()).toEqual([]);
    expect(readFileSync(path)).toEqual(original);
  });
});

describe('memory types are a closed list', { timeout: TIMEOUT }, () => {
  it('remember refuses a type outside it (CLI and MCP), naming the valid ones; custom:NAME is accepted', async () => {
    const dir = home();
    const banana = await runCli(['remember', '--type', 'banana', '--home', dir], {
      input: 'Bananas ripen fast.',
    });
    expect(banana.status).toBe(2);
    expect(banana.stderr).toMatch(
      /type "banana" is not a memory type\n {2}fix: type: one of user, feedback, caution, project, reference, note, session, session_digest; for another kind pass custom:NAME \(CLI: --type custom:banana\)/,
    );
    const custom = await runCli(
      ['remember', '--type', 'custom:Recipe', '--name', 'Banana bread', '--home', dir, '--json'],
      {
        input: 'Three ripe bananas, 180 C for an hour.',
      },
    );
    expect(custom.status, custom.stderr).toBe(0);
    expect(JSON.parse(custom.stdout)).toMatchObject({
      type: 'custom:recipe',
      file: 'recipe_banana_bread.md',
    });
    const facet = JSON.parse(
      (await runCli(['recall', 'bananas', '--facet', 'type:custom:recipe', '--home', dir, '--json'])).stdout,
    ) as Hits;
    expect(facet.results.map((r) => r.name)).toEqual(['Banana bread']);

    const wired = await wireStdio(['serve', '--home', dir]);
    cleanup.push(wired.close);
    const refused = await wired.client.callTool({
      name: 'remember',
      arguments: { content: 'x', type: 'person', name: 'Someone' },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      /type "person" is not a memory type[\s\S]*one of user, feedback.*custom:NAME/,
    );
    const tool = (await wired.client.listTools()).tools.find((t) => t.name === 'remember')!;
    expect(tool.description).toContain('custom:NAME');
  });

  it('a home holding other types still loads: listed, reported, recalled, packed', async () => {
    const dir = home();
    writeFileSync(
      join(dir, 'memory', 'decision_queue.md'),
      '---\nname: Queue decision\ntype: decision\ndescription: We use the event queue.\n---\nInvoices go through the event queue.\n',
    );
    writeFileSync(
      join(dir, 'memory', 'untyped_thing.md'),
      'A file with no frontmatter at all about kumquats.\n',
    );
    const list = await runCli(['memory', 'list', '--home', dir, '--json']);
    expect(list.status).toBe(0);
    expect(JSON.parse(list.stdout).other_types).toEqual({ decision: 1, unknown: 1 });
    const human = await runCli(['memory', 'list', '--home', dir]);
    expect(human.stdout).toMatch(/types outside the list \(.*custom:NAME\): decision \(1\), unknown \(1\)/);
    expect(
      JSON.parse((await runCli(['memory', 'list', '--type', 'decision', '--home', dir, '--json'])).stdout)
        .memories,
    ).toHaveLength(1);
    expect(await recallNames(dir, 'event queue invoices')).toContain('Queue decision');
    const status = JSON.parse((await runCli(['status', '--home', dir, '--json'])).stdout);
    expect(status.memory.other_types).toEqual({ decision: 1, unknown: 1 });
    const packet = await runCli(['packet', '--home', dir]);
    expect(packet.status).toBe(0);
    expect(JSON.parse(packet.stdout).memory_catalog.category_counts.decision).toBe(1);
    // An edit keeps a type the file already had.
    const bin = scratch();
    const ed = editor(bin, 'ed.sh', `echo "Decided in November." >> "$1"`);
    const edit = await runCli(['memory', 'edit', 'Queue decision', '--home', dir], { env: { EDITOR: ed } });
    expect(edit.status, edit.stderr).toBe(0);
  });
});

describe('firstlight sessions / events / status', { timeout: TIMEOUT }, () => {
  it('sessions lists recorded starts newest first (--json shape), reading only', async () => {
    const dir = home();
    const empty = await runCli(['sessions', '--home', dir, '--json']);
    expect(JSON.parse(empty.stdout)).toEqual({ ok: true, sessions: [], total: 0, problems: [] });
    expect((await runCli(['sessions', '--home', dir])).stdout).toMatch(
      /^firstlight: no sessions recorded yet\. .*bootstrap_session/,
    );
    const wired = await wireStdio(['serve', '--home', dir]);
    cleanup.push(wired.close);
    for (const id of ['s-one', 's-two']) {
      await wired.client.callTool({ name: 'bootstrap_session', arguments: { session_id: id } });
    }
    const log = join(dir, 'sessions.jsonl');
    writeFileSync(log, `${readFileSync(log, 'utf8')}not json\n`);
    const before = readFileSync(log);
    const json = JSON.parse((await runCli(['sessions', '--home', dir, '--json'])).stdout);
    expect(json.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(['s-two', 's-one']);
    expect(json.sessions[0]).toEqual({ session_id: 's-two', at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    expect(json.total).toBe(2);
    expect(json.problems).toEqual([expect.stringMatching(/^sessions\.jsonl line 3: not valid JSON/)]);
    const human = (await runCli(['sessions', '--home', dir, '--limit', '1'])).stdout;
    expect(human).toMatch(/^\S+Z {2}.*s-two\n… 1 older \(--limit 2\)\nproblem: sessions\.jsonl line 3/);
    expect(readFileSync(log)).toEqual(before);
    const bad = await runCli(['sessions', '--home', dir, '--limit', 'many']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--limit must be a positive integer[\s\S]*fix: pass --limit 20/);
  });

  it('events lists observe/reflect events with --since and --tool filters', async () => {
    const dir = home();
    const wired = await wireStdio(['serve', '--home', dir]);
    cleanup.push(wired.close);
    const call = (name: string, args: Record<string, unknown>) =>
      wired.client.callTool({ name, arguments: args });
    await call('observe', { tool_name: 'git_push', args: { branch: 'main' }, expected: 'push succeeds' });
    await call('observe', { tool_name: 'run_tests', args: {}, result: '3 passed' });
    await call('reflect', { observation: 'The user prefers short answers.', kind: 'user_said' });

    const all = JSON.parse((await runCli(['events', '--home', dir, '--json'])).stdout);
    expect(all).toMatchObject({ matched: 3, files: 1, skipped_lines: 0, since: null, tool: null });
    expect(all.events.map((e: { kind: string }) => e.kind)).toEqual(['observe', 'observe', 'reflect']);
    expect(all.events[0]).toMatchObject({
      kind: 'observe',
      tool_name: 'git_push',
      expected: 'push succeeds',
    });
    const git = JSON.parse((await runCli(['events', '--tool', 'git_*', '--home', dir, '--json'])).stdout);
    expect(git.events.map((e: { tool_name: string }) => e.tool_name)).toEqual(['git_push']);
    const recent = JSON.parse((await runCli(['events', '--since', '1h', '--home', dir, '--json'])).stdout);
    expect(recent.matched).toBe(3);
    const future = JSON.parse(
      (await runCli(['events', '--since', '2999-01-01', '--home', dir, '--json'])).stdout,
    );
    expect(future).toMatchObject({ events: [], matched: 0, since: '2999-01-01T00:00:00.000Z' });
    const human = (await runCli(['events', '--home', dir, '--limit', '2'])).stdout;
    expect(human).toMatch(/observe +run_tests +result: 3 passed/);
    expect(human).toMatch(/reflect +user_said: The user prefers short answers\./);
    expect(human).toMatch(/… 1 older match \(--limit 3\)/);
    const bad = await runCli(['events', '--since', 'yesterday', '--home', dir, '--json']);
    expect(bad.status).toBe(2);
    expect(JSON.parse(bad.stdout).error.fix).toMatch(/--since 30m, 2h, 7d or 1w/);
  });

  it('status reports home, persona, memory counts, last session, installed hosts and whether the server starts', async () => {
    const dir = home();
    const project = scratch();
    const user = scratch();
    mkdirSync(join(project, '.git'));
    const env = { HOME: user, FIRSTLIGHT_HOME: '' };
    const sessions = join(dir, 'sessions.jsonl');
    writeFileSync(sessions, '{"session_id":"earlier","at":"2026-11-20T09:00:00.000Z"}\n');
    const bare = JSON.parse(
      (await runCli(['status', '--home', dir, '--project', project, '--json'], { env })).stdout,
    );
    expect(bare).toEqual({
      ok: true,
      home: { dir, source: 'flag' },
      persona: { name: 'Wren', contract_available: true, files: expect.any(Number) },
      memory: {
        total: 14,
        by_type: expect.objectContaining({ user: 2, feedback: 2, session_digest: 1 }),
        other_types: {},
        skipped: 0,
        forgotten: 0,
        index_present: true,
      },
      last_session: {
        session_id: 'earlier',
        at: '2026-11-20T09:00:00.000Z',
        human: expect.stringMatching(/ago$/),
      },
      sessions_recorded: 1,
      redactions: { total: 0, by_kind: {}, by_writer: {}, since: null },
      project,
      installed: [],
      // Capture's state: on by default, no curator (no model is called), nothing queued yet.
      capture: expect.objectContaining({
        mode: 'auto',
        off_by: null,
        curator: expect.objectContaining({ substrate: null }),
        queued: 0,
        last: [],
      }),
    });
    const installed = await runCli(['install', 'claude', '--project', project, '--home', dir], { env });
    expect(installed.status, installed.stderr).toBe(0);
    const status = await runCli(['status', '--home', dir, '--project', project, '--json'], { env });
    const report = JSON.parse(status.stdout);
    expect(report.installed).toEqual([
      expect.objectContaining({
        scope: 'project',
        hosts: ['claude'],
        server: expect.objectContaining({ args: expect.arrayContaining(['serve', '--home', dir]) }),
        reachable: { ok: true, detail: expect.stringMatching(/resolves$/) },
      }),
    ]);
    const probed = JSON.parse(
      (await runCli(['status', '--probe', '--home', dir, '--project', project, '--json'], { env })).stdout,
    );
    expect(probed.installed[0].reachable).toEqual({
      ok: true,
      detail: expect.stringMatching(/answers the MCP handshake \(\d+ tools\)/),
    });
    // Reads only: neither status nor its probe records a session.
    expect(readFileSync(sessions, 'utf8')).toBe('{"session_id":"earlier","at":"2026-11-20T09:00:00.000Z"}\n');
    const human = (await runCli(['status', '--home', dir, '--project', project], { env })).stdout;
    expect(human).toMatch(/^persona +Wren: contract assembles/m);
    expect(human).toMatch(/^memory +14 memories \(/m);
    expect(human).toMatch(
      /^redacted +nothing yet \(secrets and <private> blocks are taken out before anything is written\)$/m,
    );
    expect(human).toMatch(/^hosts +project: claude$/m);
    expect(human).toMatch(/^server +ok: /m);
  });
});
