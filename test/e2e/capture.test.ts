/**
 * Issue 36: capture. The built CLI end to end: a Stop hook queues the session and returns; the
 * worker (or `firstlight capture`, which waits for it) writes the user's instruction as a
 * feedback memory with applies_to and evidence; the next PreToolUse of `yarn install` meets the
 * caution; review mode proposes instead; `capture: off` in the project opts out. And stage 1's
 * figures on the labelled set (test/fixtures/capture/).
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, EXAMPLE_HOME, REPO_ROOT, run } from '../helpers/index.js';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'capture');
const LABELS = JSON.parse(readFileSync(join(FIXTURES, 'labels.json'), 'utf8')) as Record<
  string,
  { type: string; has: string; applies?: string }[]
>;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function sandbox(): { home: string; project: string; root: string } {
  const root = mkdtempSync(join(tmpdir(), 'fl-capture-'));
  dirs.push(root);
  const home = join(root, 'home');
  cpSync(EXAMPLE_HOME, home, { recursive: true });
  rmSync(join(home, 'memory'), { recursive: true, force: true });
  mkdirSync(join(home, 'memory'));
  const project = join(root, 'project');
  mkdirSync(project);
  return { home, project, root };
}

const cli = (args: string[], input?: string, env: NodeJS.ProcessEnv = {}) =>
  run(process.execPath, [CLI, ...args], {
    ...(input === undefined ? {} : { input }),
    env: { ...process.env, FIRSTLIGHT_HOME: '', ...env },
  });

/** The bootstrap gate stands aside: these calls are about the caution behind it. */
const GATE_OPEN = { FIRSTLIGHT_GATE_BYPASS: '1' };

interface Report {
  status: string;
  why?: string;
  wrote: { name: string; type: string; file: string; evidence: string[] }[];
  proposed: { name: string; type: string; file: string }[];
  skipped: { what: string; why: string }[];
  digest: string | null;
}

async function captureOne(home: string, project: string, id: string): Promise<Report> {
  const ran = await cli([
    'capture',
    '--home',
    home,
    '--session',
    id,
    '--transcript',
    join(FIXTURES, 'sessions', `${id}.jsonl`),
    '--project',
    project,
    '--json',
  ]);
  expect(ran.status, ran.stderr).toBe(0);
  return (JSON.parse(ran.stdout) as { captures: Report[] }).captures[0]!;
}

/** The text the SessionStart hook injects for a new session in `project`. */
async function sessionStartText(home: string, project: string, session: string): Promise<string> {
  const ran = await cli(
    ['hook', 'session-start', '--host', 'claude', '--home', home],
    JSON.stringify({ session_id: session, cwd: project, source: 'startup', hook_event_name: 'SessionStart' }),
  );
  expect(ran.status, ran.stderr).toBe(0);
  return (JSON.parse(ran.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput
    .additionalContext;
}

const memoryText = (home: string, file: string) => readFileSync(join(home, 'memory', file), 'utf8');

describe('capture (issue 36)', () => {
  it('a Stop hook queues the session; capture writes the instruction and the next yarn call meets the caution', async () => {
    const { home, project } = sandbox();
    const transcript = join(FIXTURES, 'sessions', 'yarn-pnpm.jsonl');
    const stop = await cli(
      ['hook', 'stop', '--host', 'claude', '--home', home],
      JSON.stringify({
        session_id: 'yarn-pnpm',
        transcript_path: transcript,
        cwd: project,
        hook_event_name: 'Stop',
      }),
    );
    expect(stop.status, stop.stderr).toBe(0);
    // `firstlight capture` waits for the worker the hook started, then runs what is left.
    const captured = await cli(['capture', '--home', home, '--json']);
    expect(captured.status, captured.stderr).toBe(0);
    const log = readFileSync(join(home, 'capture', 'log.jsonl'), 'utf8')
      .trim()
      .split('\n');
    const report = JSON.parse(log.at(-1)!) as Report;
    const feedback = report.wrote.find((w) => w.type === 'feedback');
    expect(feedback, log.join('\n')).toBeDefined();
    const text = memoryText(home, feedback!.file);
    expect(text).toContain('applies_to: ["*(yarn*)"]');
    expect(text).toContain('source: "capture"');
    expect(text).toContain('transcript:L1 \\"');
    const pre = await cli(
      ['hook', 'pre-tool-use', '--host', 'claude', '--home', home],
      JSON.stringify({
        session_id: 'next',
        transcript_path: transcript,
        cwd: project,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'yarn install' },
      }),
      GATE_OPEN,
    );
    expect(pre.status, pre.stderr).toBe(0);
    expect(pre.stdout).toContain('Never use yarn in this repo');
  });

  it('the next session start names the captured instruction and what matches where the last one left off, resumption first, no file names', async () => {
    const { home, project } = sandbox();
    // A memory the session's last words ("Added the lint script and ran it") should bring back.
    writeFileSync(
      join(home, 'memory', 'project_lint_setup.md'),
      '---\nname: Lint setup\ntype: project\ndescription: the lint script runs eslint with the flat config in eslint.config.js\n---\nThe lint script runs eslint.\n',
    );
    writeFileSync(
      join(home, 'memory', 'note_unrelated.md'),
      '---\nname: Coffee order\ntype: note\ndescription: a flat white, no sugar\n---\nA flat white.\n',
    );
    const stop = await cli(
      ['hook', 'stop', '--host', 'claude', '--home', home],
      JSON.stringify({
        session_id: 'yarn-pnpm',
        transcript_path: join(FIXTURES, 'sessions', 'yarn-pnpm.jsonl'),
        cwd: project,
        hook_event_name: 'Stop',
      }),
      { FIRSTLIGHT_CAPTURE_WORKER: 'off' },
    );
    expect(stop.status, stop.stderr).toBe(0);
    const captured = await cli(['capture', '--home', home, '--json']);
    expect(captured.status, captured.stderr).toBe(0);
    const report = (JSON.parse(captured.stdout) as { captures: (Report & { related: number })[] })
      .captures[0]!;
    const feedback = report.wrote.find((w) => w.type === 'feedback')!;
    const text = await sessionStartText(home, project, 'next-session');
    const section = text.slice(text.indexOf('## Relevant memories'));
    expect(text).toContain('## Relevant memories');
    // Resumption (the last words) still comes first.
    expect(text.indexOf('Added the lint script')).toBeLessThan(text.indexOf('## Relevant memories'));
    expect(section).toMatch(
      /Instructions and cautions in force:\n- Never use yarn in this repo[^\n]*\(feedback\)/,
    );
    expect(section).toMatch(/Related to where you left off:\n- Lint setup \(project\)/);
    expect(section.split('## ')[1]).not.toContain('Coffee order');
    expect(text).not.toContain(feedback.file);
    expect(text).not.toContain('project_lint_setup.md');
    expect(text.length).toBeLessThanOrEqual(8000);
    expect(report.related).toBeGreaterThanOrEqual(1);
    // The packet carries the same section; the catalog stays counts only.
    const packet = await run(process.execPath, [CLI, 'packet', '--home', home, '--json'], {
      cwd: project,
      env: { ...process.env, FIRSTLIGHT_HOME: '' },
    });
    const parsed = JSON.parse(packet.stdout) as {
      relevant_memories: { instructions: { name: string }[]; related: { name: string }[] };
      memory_catalog: Record<string, unknown>;
    };
    expect(parsed.relevant_memories.instructions.map((m) => m.name)).toContain(feedback.name);
    expect(parsed.relevant_memories.related.map((m) => m.name)).toContain('Lint setup');
    expect(JSON.stringify(parsed.memory_catalog)).not.toContain('Never use yarn');
    // A forgotten memory leaves the next start's list.
    rmSync(join(home, 'memory', 'project_lint_setup.md'));
    expect(await sessionStartText(home, project, 'after-forget')).not.toContain('Lint setup');
  });

  it('review mode keeps proposed memories that never caution until accepted', async () => {
    const { home, project } = sandbox();
    writeFileSync(join(home, 'firstlight.yaml'), 'capture:\n  mode: review\n');
    const report = await captureOne(home, project, 'yarn-pnpm');
    expect(report.wrote).toEqual([]);
    expect(report.proposed.map((p) => p.type)).toContain('feedback');
    const pre = (session: string) =>
      cli(
        ['hook', 'pre-tool-use', '--host', 'claude', '--home', home],
        JSON.stringify({
          session_id: session,
          cwd: project,
          tool_name: 'Bash',
          tool_input: { command: 'yarn add x' },
        }),
        GATE_OPEN,
      );
    expect((await pre('a')).stdout).not.toContain('yarn');
    // Proposed is not fact: the next start does not name it.
    expect(await sessionStartText(home, project, 'proposed')).not.toContain('Never use yarn');
    const listed = await cli(['memory', 'review', '--home', home, '--json']);
    expect(JSON.parse(listed.stdout).proposed).toHaveLength(1);
    const accepted = await cli(['memory', 'review', 'accept', '--all', '--home', home, '--json']);
    expect(accepted.status, accepted.stderr).toBe(0);
    expect((await pre('b')).stdout).toContain('Never use yarn');
    expect(await sessionStartText(home, project, 'accepted')).toContain('- Never use yarn');
  });

  it('capture: off in the project opts out, and a second capture of the same session adds nothing', async () => {
    const { home, project } = sandbox();
    mkdirSync(join(project, '.firstlight'));
    writeFileSync(join(project, '.firstlight', 'firstlight.yaml'), 'capture: off\n');
    const off = await captureOne(home, project, 'yarn-pnpm');
    expect(off.status).toBe('skipped');
    expect(off.why).toContain('capture: off');
    rmSync(join(project, '.firstlight', 'firstlight.yaml'));
    expect((await captureOne(home, project, 'yarn-pnpm')).wrote).toHaveLength(1);
    const again = await captureOne(home, project, 'yarn-pnpm');
    expect(again.wrote).toEqual([]);
  });

  it('stage 1 on the labelled set: every fact found, no junk kept, nothing from private or redacted text', async () => {
    let facts = 0;
    let found = 0;
    let junk = 0;
    const rows: string[] = [];
    for (const [id, expected] of Object.entries(LABELS)) {
      const { home, project } = sandbox();
      const report = await captureOne(home, project, id);
      const kept = [
        ...report.wrote.map((w) => ({ type: w.type, text: memoryText(home, w.file).toLowerCase() })),
        ...(report.digest ? [{ type: 'session_digest', text: report.digest }] : []),
      ];
      const digestFile = report.digest
        ? readFileSync(join(home, 'memory', 'MEMORY.md'), 'utf8').match(/\((session_digest_[^)]+)\)/)?.[1]
        : undefined;
      if (digestFile) kept[kept.length - 1]!.text = memoryText(home, digestFile).toLowerCase();
      const matched = new Set<number>();
      for (const fact of expected) {
        facts++;
        const at = kept.findIndex(
          (k, i) =>
            !matched.has(i) &&
            k.type === fact.type &&
            k.text.includes(fact.has.toLowerCase()) &&
            (!fact.applies || k.text.includes(JSON.stringify(fact.applies).slice(1, -1))),
        );
        if (at >= 0) {
          matched.add(at);
          found++;
        }
      }
      junk += kept.length - matched.size;
      rows.push(`${id}: ${matched.size}/${expected.length} found, ${kept.length - matched.size} junk`);
      for (const k of kept) {
        expect(k.text).not.toContain('hunter2');
        expect(k.text).not.toContain('sk-ant-');
      }
    }
    console.log(`[capture figures] facts found ${found}/${facts}, junk kept ${junk}\n${rows.join('\n')}`);
    expect(found / facts).toBeGreaterThanOrEqual(0.9);
    expect(junk).toBeLessThanOrEqual(1);
  });
});
