/**
 * Issue 36, stage 2: the curator on `openai-compatible` against a scripted Chat Completions
 * model on loopback (test/hosts/model-server.ts). It receives the session redacted (no key, no
 * private block), its proposals become memories with evidence found in the session (one with
 * made-up evidence is dropped), and a second session past the daily budget makes no request and
 * says it was skipped; a session over `session_tokens` is skipped before any request.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, EXAMPLE_HOME, run } from '../helpers/index.js';
import { startModelServer } from '../hosts/model-server.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const KEY = 'sk-proj-9f8e7d6c5b4a39281706f5e4d3c2b1a0ZZq7Wm3Xk2Lp9Rt5Yv8Nb4';

function line(type: 'user' | 'assistant', n: number, text: string): string {
  const content = type === 'user' ? text : [{ type: 'text', text }];
  return JSON.stringify({
    sessionId: 's',
    uuid: `u${n}`,
    timestamp: `2026-12-01T09:00:0${n}.000Z`,
    type,
    message: { role: type, content },
  });
}

function sandbox(curator: string): {
  home: string;
  project: string;
  transcript: (name: string, lines: string[]) => string;
} {
  const root = mkdtempSync(join(tmpdir(), 'fl-curator-'));
  dirs.push(root);
  const home = join(root, 'home');
  cpSync(EXAMPLE_HOME, home, { recursive: true });
  rmSync(join(home, 'memory'), { recursive: true, force: true });
  mkdirSync(join(home, 'memory'));
  writeFileSync(join(home, 'firstlight.yaml'), curator);
  const project = join(root, 'project');
  mkdirSync(project);
  return {
    home,
    project,
    transcript: (name, lines) => {
      const file = join(root, `${name}.jsonl`);
      writeFileSync(file, `${lines.join('\n')}\n`);
      return file;
    },
  };
}

interface Report {
  status: string;
  wrote: { name: string; type: string; file: string; evidence: string[] }[];
  skipped: { what: string; why: string }[];
  tokens: number | null;
  curator?: {
    status: string;
    why?: string;
    tokens: number | null;
    estimate: number;
    day: { used: number; budget: number };
  };
}

async function capture(home: string, project: string, session: string, transcript: string): Promise<Report> {
  const ran = await run(
    process.execPath,
    [
      CLI,
      'capture',
      '--home',
      home,
      '--session',
      session,
      '--transcript',
      transcript,
      '--project',
      project,
      '--json',
    ],
    { env: { ...process.env, FIRSTLIGHT_HOME: '', OPENAI_API_KEY: '' } },
  );
  expect(ran.status, ran.stderr).toBe(0);
  return (JSON.parse(ran.stdout) as { captures: Report[] }).captures[0]!;
}

const ANSWER = (evidence: string) =>
  [
    'Here is what to keep:',
    '```json',
    JSON.stringify({
      memories: [
        {
          type: 'feedback',
          name: 'Use pnpm, never yarn',
          description: 'this repo uses pnpm; yarn breaks the lockfile',
          content: 'Never use yarn in this repo; use pnpm for every install and script.',
          applies_to: ['*(yarn*)'],
          evidence: [evidence],
        },
        {
          type: 'project',
          name: 'Staging deploys through make',
          description: 'staging is deployed with make deploy-staging',
          content: 'Deploy staging with `make deploy-staging`; it runs the migrations first.',
          evidence: ['L3 We deploy staging with make deploy-staging'],
        },
        {
          type: 'project',
          name: 'Invented fact',
          description: 'nobody said this',
          content: 'The database is Oracle.',
          evidence: ['L2 the database is Oracle'],
        },
      ],
      digest: 'Decided to keep pnpm; staging deploys stay on make.',
    }),
    '```',
  ].join('\n');

describe('capture curator (issue 36, stage 2)', () => {
  it('sends the redacted session, keeps proposals with evidence, and skips a session past the daily budget without a request', async () => {
    await using model = await startModelServer({
      script: [
        { text: ANSWER('L1 Never use yarn in this repo, always pnpm.'), usage: { input: 2600, output: 500 } },
      ],
    });
    const s = sandbox(
      [
        'capture:',
        '  curator:',
        '    substrate: openai-compatible:curator-model',
        '    session_tokens: 4000',
        '    daily_tokens: 5000',
        'substrates:',
        '  openai_compatible:',
        `    base_url: ${model.url}/v1`,
        '',
      ].join('\n'),
    );
    const one = s.transcript('one', [
      line('user', 1, 'Never use yarn in this repo, always pnpm.'),
      line('user', 2, `The staging key is ${KEY} <private>my password is hunter2</private>`),
      line('user', 3, 'We deploy staging with make deploy-staging, it runs migrations first.'),
      line('assistant', 4, 'Understood, pnpm only.'),
    ]);
    const report = await capture(s.home, s.project, 'one', one);
    expect(model.turns).toHaveLength(1);
    const sent = JSON.stringify(model.turns[0]!.body);
    expect(sent).toContain('Never use yarn in this repo, always pnpm.');
    expect(sent).toContain('make deploy-staging');
    expect(sent).not.toContain(KEY);
    expect(sent).not.toContain('hunter2');
    expect(report.curator).toMatchObject({ status: 'ran', tokens: 3100, day: { used: 3100, budget: 5000 } });
    expect(report.tokens).toBe(3100);
    expect(report.wrote.map((w) => w.name).sort()).toEqual([
      'Staging deploys through make',
      'Use pnpm, never yarn',
    ]);
    expect(report.skipped).toContainEqual({
      what: 'Invented fact',
      why: 'curator: no evidence the session holds',
    });
    const feedback = report.wrote.find((w) => w.type === 'feedback')!;
    expect(feedback.evidence).toEqual(['transcript:L1 "Never use yarn in this repo, always pnpm."']);
    const text = readFileSync(join(s.home, 'memory', feedback.file), 'utf8');
    expect(text).toContain('applies_to: ["*(yarn*)"]');
    expect(text).toContain('source: "capture"');

    // Session two: 3,100 used of 5,000; its prompt and answer room do not fit what is left.
    const two = s.transcript('two', [
      line('user', 1, 'From now on always run the linter before committing.'),
      line('assistant', 2, 'Will do.'),
    ]);
    const skipped = await capture(s.home, s.project, 'two', two);
    expect(model.turns).toHaveLength(1); // no request
    expect(skipped.curator?.status).toBe('skipped');
    expect(skipped.curator?.why).toContain('over capture.curator.daily_tokens');
    expect(skipped.tokens).toBeNull();
    // Stage 1 still ran: the session's rule is kept without the curator.
    expect(skipped.wrote.map((w) => w.type)).toContain('feedback');
    const usage = JSON.parse(readFileSync(join(s.home, 'capture', 'usage.json'), 'utf8')) as {
      days: Record<string, number>;
    };
    expect(Object.values(usage.days)).toEqual([3100]);

    // firstlight status: today's use against the budget, and the last captures with their tokens.
    const status = await run(
      process.execPath,
      [CLI, 'status', '--home', s.home, '--project', s.project, '--json'],
      {
        env: { ...process.env, FIRSTLIGHT_HOME: '' },
      },
    );
    expect(status.status, status.stderr).toBe(0);
    const shown = (
      JSON.parse(status.stdout) as {
        capture: { curator: { today: { used: number } }; last: Record<string, unknown>[] };
      }
    ).capture;
    expect(shown.curator).toMatchObject({
      substrate: 'openai-compatible:curator-model',
      daily_tokens: 5000,
    });
    expect(shown.curator.today.used).toBe(3100);
    expect(shown.last[0]).toMatchObject({ session: 'two', tokens: null, curator: { status: 'skipped' } });
    expect(shown.last[1]).toMatchObject({
      session: 'one',
      tokens: 3100,
      wrote: 2,
      curator: { status: 'ran' },
    });
    const human = await run(process.execPath, [CLI, 'status', '--home', s.home, '--project', s.project], {
      env: { ...process.env, FIRSTLIGHT_HOME: '' },
    });
    expect(human.stdout).toMatch(
      /capture {4}auto, at most 5 per session; 0 queued; curator openai-compatible:curator-model: 3100 \/ 5000 tokens today/,
    );
    expect(human.stdout).toContain('curator skipped (over capture.curator.daily_tokens');
  });

  it('skips a session over session_tokens before any request, and a bad answer fails once, never retried', async () => {
    await using model = await startModelServer({ script: [{ text: 'I think you should remember things.' }] });
    const s = sandbox(
      [
        'capture:',
        '  curator:',
        '    substrate: openai-compatible:curator-model',
        '    session_tokens: 400',
        'substrates:',
        '  openai_compatible:',
        `    base_url: ${model.url}/v1`,
        '',
      ].join('\n'),
    );
    const long = s.transcript('long', [
      line('user', 1, `Never use yarn here. ${'Some long context about the build. '.repeat(60)}`),
      line('assistant', 2, 'Noted.'),
    ]);
    const over = await capture(s.home, s.project, 'long', long);
    expect(model.turns).toHaveLength(0);
    expect(over.curator?.status).toBe('skipped');
    expect(over.curator?.why).toContain('over capture.curator.session_tokens');

    writeFileSync(
      join(s.home, 'firstlight.yaml'),
      readFileSync(join(s.home, 'firstlight.yaml'), 'utf8').replace(
        'session_tokens: 400',
        'session_tokens: 8000',
      ),
    );
    const short = s.transcript('short', [
      line('user', 1, 'Always pnpm, never npm.'),
      line('assistant', 2, 'Ok.'),
    ]);
    const failed = await capture(s.home, s.project, 'short', short);
    expect(model.turns).toHaveLength(1);
    expect(failed.curator?.status).toBe('failed');
    expect(failed.curator?.why).toContain('not one fenced JSON block');
    expect(failed.status).toBe('captured'); // stage 1's candidates stand
  });
});
