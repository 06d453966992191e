import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InvokeResult, JournalEntry } from '../../src/runtime/index.js';
import { CLI, REPO_ROOT, run, runCli, tempDir } from '../helpers/index.js';

/**
 * The runtime's first run, as a new user meets it: a plain `firstlight init`, then the README's
 * "Run a persona" commands exactly as written (read from README.md itself, so they cannot
 * drift), `runtime demo`, the role default, `--context` and `--governance`, and the hint for a
 * persona that is not there. Each failed on the build before the first run worked (run with
 * FIRSTLIGHT_CLI=<an older dist/cli/main.js> to see it).
 */
describe('the runtime: first run after a plain init', { timeout: 180_000 }, () => {
  let root: { dir: string; dispose: () => void };
  let home: string;
  let work: string;
  let bin: string;

  /** Runs a shell script with `firstlight` on PATH (the CLI under test) and the temp home. */
  const sh = async (script: string) =>
    await run('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: work,
      timeoutMs: 120_000,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, FIRSTLIGHT_HOME: home },
    });
  const invoke = async (args: string[]) => {
    const run = await runCli(['invoke', '--home', home, '--json', ...args], { cwd: work, timeoutMs: 60_000 });
    return { code: run.status, result: JSON.parse(run.stdout) as InvokeResult, stderr: run.stderr };
  };

  /** The bundled explorer session, in the explorer profile's role_default (no --role). */
  const EXPLORE = [
    '--persona',
    'explorer',
    '--surface',
    'synthesis-ledger',
    '--engagement',
    'agent',
    '--task',
    'look around',
    '--substrate',
    'scripted:explorer',
  ];

  beforeAll(async () => {
    root = tempDir('firstlight-first-run-');
    home = join(root.dir, 'home');
    work = join(root.dir, 'work');
    bin = join(root.dir, 'bin');
    mkdirSync(work);
    mkdirSync(bin);
    writeFileSync(join(bin, 'firstlight'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    chmodSync(join(bin, 'firstlight'), 0o755);
    const init = await sh('firstlight init');
    expect(init.status, init.stderr).toBe(0);
  });
  afterAll(() => root.dispose());

  it('a plain init gives the home the five role personas', () => {
    const personas = readdirSync(join(home, 'personas')).filter((name) => name.endsWith('.yaml'));
    expect(personas.sort()).toEqual([
      'auditor.yaml',
      'builder.yaml',
      'explorer.yaml',
      'planner.yaml',
      'resolver.yaml',
    ]);
  });

  it("runs the README's runtime commands as written", async () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const section = /^## Run a persona\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? '';
    const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
    expect(blocks.length, 'the README has a "Run a persona" section with a sh block').toBeGreaterThan(0);
    for (const block of blocks) {
      const run = await sh(block);
      expect(run.status, `${block}\n${run.stdout}\n${run.stderr}`).toBe(0);
    }
    // What they did is in the home's ledger: the explorer's synthesis handed to the planner.
    const journal = await runCli(['journal', '--home', home, '--json', '--type', 'transition'], {
      cwd: work,
    });
    const transitions = (JSON.parse(journal.stdout) as { entries: JournalEntry[] }).entries;
    expect(transitions.map((e) => e.title.replace(/ \(.*$/, ''))).toEqual([
      'transition: exploration → planning',
      'transition: planning → execution',
    ]);
  });

  it('runtime demo runs the whole workflow in a temporary project and tells the journal as a story', async () => {
    const run = await sh('firstlight runtime demo');
    expect(run.status, run.stderr).toBe(0);
    for (const role of ['explorer', 'planner', 'builder', 'validator', 'resolver'])
      expect(run.stdout).toContain(`as ${role} (`);
    expect(run.stdout).toContain('The journal, as a story:');
    expect(run.stdout).toMatch(/hands an artifact handoff, artifact-[0-9a-f]+, on to validation \(sha256 /);
    expect(run.stdout).toMatch(/hands a revision handoff, revision-[0-9a-f]+, on to validation/);
    expect(run.stdout.match(/ starts in /g)).toHaveLength(6);
    // Nothing left behind in the user's directory.
    expect(readdirSync(work).filter((name) => name.startsWith('.firstlight'))).toEqual([]);
  });

  it("invoke takes the profile's role_default when --role is omitted", async () => {
    const { code, result } = await invoke(EXPLORE);
    expect(code, JSON.stringify(result.meta)).toBe(0);
    expect(result.meta.role).toBe('explorer');
    expect(result.meta.mode).toBe('exploration');
  });

  it('--governance reaches a validator by pointer; --context reaches an explorer and is refused to a planner and a validator', async () => {
    const synthesis = (await invoke(EXPLORE)).result.meta.handoff_id!;
    const context = join(work, 'context.yaml');
    writeFileSync(
      context,
      '- {role: user, content: "We talked about caching yesterday."}\n- {role: user, content: "Keep writes out of it."}\n',
    );
    const record = join(work, 'received.jsonl');
    const script = join(work, 'explore-recorded.yaml');
    writeFileSync(
      script,
      `record: received.jsonl\n${readFileSync(join(REPO_ROOT, 'examples', 'sessions', 'explorer.yaml'), 'utf8')}`,
    );
    // An explorer's context is light: it builds on earlier conversation.
    const explored = await invoke([...EXPLORE.slice(0, -1), `scripted:${script}`, '--context', context]);
    expect(explored.code, JSON.stringify(explored.result.meta)).toBe(0);
    const received = JSON.parse(readFileSync(record, 'utf8').trim().split('\n')[0]!) as {
      messages: { content: string }[];
    };
    expect(received.messages.map((m) => m.content).slice(0, 2)).toEqual([
      'We talked about caching yesterday.',
      'Keep writes out of it.',
    ]);
    // A planner's is fresh: it reads the synthesis, not the conversation (issue 38).
    const plan = await invoke([
      '--persona',
      'planner',
      '--surface',
      'code-output',
      '--engagement',
      'agent',
      '--task',
      'plan',
      '--handoff',
      synthesis,
      '--context',
      context,
      '--substrate',
      'scripted:planner',
    ]);
    expect(plan.code).toBe(3);
    expect(plan.result.meta.refusal_reason).toBe('inherited_context');

    const validator = [
      '--persona',
      'auditor',
      '--surface',
      'audit',
      '--engagement',
      'agent',
      '--task',
      'validate',
      '--handoff',
      'artifact-0000dead',
      '--substrate',
      'scripted:validator',
    ];
    const refused = await invoke([...validator, '--context', context]);
    expect(refused.result.meta.refusal_reason).toBe('validator_extra_context');
    expect(refused.result.meta.detail).toMatch(/2 message\(s\) of prior conversation/);
    // A governance pointer is the one extra a validator takes: it gets past fresh context.
    const governed = await invoke([
      ...validator,
      '--governance',
      'klappy://canon/constraints/critic-cannot-be-resolver',
    ]);
    expect(governed.result.meta.refusal_reason).toBe('no_builder_handoff');
  });

  it('a persona that is not there gets a hint that names the file to create', async () => {
    const run = await runCli(
      [
        'invoke',
        '--home',
        home,
        '--persona',
        'nosuch',
        '--role',
        'explorer',
        '--surface',
        'audit',
        '--engagement',
        'agent',
        '--task',
        'x',
        '--substrate',
        'scripted:explorer',
      ],
      { cwd: work },
    );
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(`put nosuch.yaml in ${join(home, 'personas')}`);
    expect(run.stderr).not.toContain('.yaml.yaml');
    expect(run.stderr).toMatch(/there: .*explorer/);
    expect(existsSync(join(home, 'personas', 'nosuch.yaml'))).toBe(false);
  });
});
