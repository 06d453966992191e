import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleHomeCopy, REPO_ROOT, runCli, tempHome, wireStdio } from '../helpers/index.js';

/**
 * Cognition that does not depend on the model remembering: the built CLI's `hook pre-tool-use`
 * and `hook post-tool-use` fed each host's own payload shapes (test/fixtures/hosts/<host>/), on a
 * home whose only cautionary memories are the ones written here.
 */
const HOSTS = ['claude', 'codex', 'gemini', 'copilot', 'cursor', 'vscode'] as const;
type Host = (typeof HOSTS)[number];

const fixture = (host: Host, name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'hosts', host, `${name}.json`), 'utf8'));
const expected = (host: Host) => fixture(host, 'expected') as { preContext: unknown; toolName: string };

/** The same call with another shell command, in the host's own argument shape. */
function withCommand(host: Host, payload: Record<string, unknown>, command: string): Record<string, unknown> {
  if (host === 'copilot') return { ...payload, toolArgs: JSON.stringify({ command }) };
  return { ...payload, tool_input: { ...(payload.tool_input as object), command } };
}

/** What a host's answer says, whatever its shape. */
function answer(stdout: string): { context?: string; decision?: string; reason?: string } {
  if (stdout.trim() === '') return {};
  const o = JSON.parse(stdout);
  const h = o.hookSpecificOutput ?? {};
  return {
    context: h.additionalContext ?? o.additionalContext ?? o.additional_context,
    decision: h.permissionDecision ?? o.permissionDecision ?? o.permission ?? o.decision,
    reason: h.permissionDecisionReason ?? o.permissionDecisionReason ?? o.agent_message ?? o.reason,
  };
}

let home: { dir: string; dispose: () => void };

async function hook(
  event: string,
  host: Host,
  payload: Record<string, unknown>,
  env: NodeJS.ProcessEnv = {},
) {
  const r = await runCli(['hook', event, '--host', host, '--home', home.dir], {
    input: JSON.stringify(payload),
    env: { FIRSTLIGHT_GATE_BYPASS: '1', COPILOT_CLI: '', ...env },
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

async function remember(name: string, text: string, extra: string[]) {
  const r = await runCli(['remember', '--home', home.dir, '--type', 'feedback', '--name', name, ...extra], {
    input: text,
  });
  expect(r.status, r.stderr).toBe(0);
}

function hookEvents(): Record<string, unknown>[] {
  const dir = join(home.dir, 'events');
  return readdirSync(dir)
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.source === 'hook');
}

beforeAll(async () => {
  home = exampleHomeCopy();
  // Only this test's cautions: drop the example's memories that carry applies_to.
  const memory = join(home.dir, 'memory');
  for (const f of readdirSync(memory))
    if (/^applies_to:/m.test(readFileSync(join(memory, f), 'utf8'))) rmSync(join(memory, f));
  await remember(
    'Clean builds carefully',
    'Keep build/ when a release is being cut: the packager reads it.',
    ['--applies-to', '{Bash,run_shell_command,Shell,runInTerminal}(rm -rf*)'],
  );
  await remember('No force push', 'Never force-push: open a pull request instead.', [
    '--applies-to',
    '*(git push --force*)',
    '--on-match',
    'deny',
  ]);
});
afterAll(() => home.dispose());

describe('PreToolUse cautions from applies_to memories, per host input shape (built CLI)', () => {
  for (const host of HOSTS) {
    it(`${host}: a matching call gets the caution in the host's context field (once per session), a non-matching one nothing`, async () => {
      const pre = fixture(host, 'pre-tool-use');
      const first = answer(await hook('pre-tool-use', host, pre));
      expect(first.decision).toBeUndefined();
      if (expected(host).preContext) {
        expect(first.context).toContain('Keep build/ when a release is being cut');
        expect(first.context).toContain('Clean builds carefully');
        // Nothing twice for the same memory in one session.
        expect(answer(await hook('pre-tool-use', host, pre)).context).toBeUndefined();
      } else {
        // No context field before the call on this host: the caution comes with the result.
        expect(first.context).toBeUndefined();
        const post = answer(await hook('post-tool-use', host, fixture(host, 'post-tool-use')));
        expect(post.context).toContain('Keep build/ when a release is being cut');
      }
      expect(await hook('pre-tool-use', host, withCommand(host, pre, 'ls -la'))).toBe('');
    });

    it(`${host}: on_match: deny denies with the memory's text`, async () => {
      const out = answer(
        await hook(
          'pre-tool-use',
          host,
          withCommand(host, fixture(host, 'pre-tool-use'), 'git push --force origin main'),
        ),
      );
      expect(out.decision).toBe('deny');
      expect(out.reason).toContain('Never force-push: open a pull request instead.');
      // A refused call is a tool call too: recorded at PreToolUse (outcome: denied), never paired.
      expect(hookEvents().some((e) => e.host === host && e.outcome === 'denied' && !e.expectation_of)).toBe(
        true,
      );
    });
  }

  it('the gate still decides first: an unproven session is denied by the gate, not cautioned', async () => {
    const pre = {
      ...fixture('claude', 'pre-tool-use'),
      session_id: 'unproven',
      transcript_path: '/nonexistent.jsonl',
    };
    const out = answer(await hook('pre-tool-use', 'claude', pre, { FIRSTLIGHT_GATE_BYPASS: '' }));
    expect(out.decision).toBe('deny');
    expect(out.reason).toContain('bootstrap_session');
  });

  it('on_match: ask asks where the host can, and refuses once (then warns nothing) where it cannot', async () => {
    await remember('Ask before migrations', 'Migrations lock the orders table: ask first.', [
      '--applies-to',
      '*(npm run migrate*)',
      '--on-match',
      'ask',
    ]);
    const claude = answer(
      await hook(
        'pre-tool-use',
        'claude',
        withCommand('claude', fixture('claude', 'pre-tool-use'), 'npm run migrate'),
      ),
    );
    expect(claude.decision).toBe('ask');
    expect(claude.reason).toContain('Migrations lock the orders table');
    const codexPre = withCommand('codex', fixture('codex', 'pre-tool-use'), 'npm run migrate');
    const codex = answer(await hook('pre-tool-use', 'codex', codexPre));
    expect(codex.decision).toBe('deny');
    expect(codex.reason).toContain('Ask the user');
    expect(answer(await hook('pre-tool-use', 'codex', codexPre)).decision).toBeUndefined();
  });
});

describe('PostToolUse records every call (source: hook) and pairs it with observe(expected=…)', () => {
  it('every host shape is recorded; an expectation the outcome contradicts is fed back side by side', async () => {
    const wired = await wireStdio(['serve', '--home', home.dir]);
    try {
      for (const host of HOSTS) {
        const post = fixture(host, 'post-tool-use');
        await wired.client.callTool({
          name: 'observe',
          arguments: {
            tool_name: expected(host).toolName,
            args: { command: 'rm -rf build' },
            expected: `removes 40 files (${host})`,
          },
        });
        const out = answer(await hook('post-tool-use', host, post));
        expect(out.context, host).toContain('prediction error');
        expect(out.context, host).toContain(`expected: removes 40 files (${host})`);
        expect(out.context, host).toContain('outcome:  removed 3 files');
      }
    } finally {
      await wired.close();
    }
    const events = hookEvents();
    for (const host of HOSTS) {
      const e = events.find((x) => x.host === host && x.expectation_of);
      expect(e, host).toMatchObject({
        kind: 'observe',
        source: 'hook',
        outcome: 'ok',
        result: 'removed 3 files',
      });
      expect(e!.prediction_error as number).toBeGreaterThan(0.7);
      expect(typeof e!.args_hash).toBe('string');
    }
    expect(events.find((x) => x.host === 'claude' && x.expectation_of)).toMatchObject({
      duration_ms: 42,
      tool_use_id: 'toolu_9',
    });
  }, 120_000);

  it('failure events are recorded as errors; a near-equal count is a small error, not fed back', async () => {
    for (const host of ['claude', 'copilot', 'cursor'] as const) {
      expect(await hook('post-tool-failure', host, fixture(host, 'post-tool-failure'))).toBe('');
    }
    const failures = hookEvents().filter((e) => e.outcome === 'error');
    expect(failures.map((e) => e.host).sort()).toEqual(['claude', 'copilot', 'cursor']);
    expect(failures.every((e) => String(e.error).includes('Permission denied'))).toBe(true);

    const wired = await wireStdio(['serve', '--home', home.dir]);
    try {
      await wired.client.callTool({
        name: 'observe',
        arguments: { tool_name: 'Bash', args: { command: 'wc -l app.log' }, expected: 'about 1000 lines' },
      });
    } finally {
      await wired.close();
    }
    const post = {
      ...fixture('claude', 'post-tool-use'),
      tool_input: { command: 'wc -l app.log' },
      tool_response: { stdout: '1012 lines', stderr: '' },
    };
    expect(await hook('post-tool-use', 'claude', post)).toBe('');
    const paired = hookEvents().find((e) => String(e.args).includes('wc -l'));
    expect(paired!.prediction_error as number).toBeLessThan(0.1);
  }, 120_000);

  it('issue 35: a response nested 5,000 deep is still recorded, cut with a marker (the hook overflowed its stack)', async () => {
    // Built as text: JSON.stringify itself overflows on a value this deep.
    const deep = (leaf: string) => `${'{"a":'.repeat(5000)}{"text":"${leaf}"}${'}'.repeat(5000)}`;
    const payload = fixture('claude', 'post-tool-use');
    const input = JSON.stringify({
      ...payload,
      tool_name: 'Read',
      tool_use_id: 'toolu_deep',
      tool_response: 0,
      tool_input: 0,
    })
      .replace('"tool_response":0', `"tool_response":${deep('deep-response-leaf')}`)
      .replace('"tool_input":0', `"tool_input":{"file_path":"x","nested":${deep('deep-args-leaf')}}`);
    const r = await runCli(['hook', 'post-tool-use', '--host', 'claude', '--home', home.dir], { input });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/could not record/);
    const event = hookEvents().find((e) => e.tool_use_id === 'toolu_deep');
    expect(event, 'the deep call has an event').toBeDefined();
    expect(event!.result).toMatch(/^\{"a":\{"a":/);
    expect(event!.result).toContain('[nested deeper than 64 levels: cut]');
    expect(event!.args).toContain('"file_path":"x"');
    expect(event!.args).toContain('[nested deeper than 64 levels: cut]');
  });

  it('observation fails open: an unusable event store never blocks the tool', async () => {
    const broken = tempHome('firstlight-broken-home-');
    try {
      writeFileSync(join(broken.dir, 'events'), 'not a directory');
      const r = await runCli(['hook', 'post-tool-use', '--host', 'claude', '--home', broken.dir], {
        input: JSON.stringify(fixture('claude', 'post-tool-use')),
      });
      expect(r.status).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('could not record the call');
    } finally {
      broken.dispose();
    }
  });
});

describe('concurrent hook processes append without lost or torn lines', () => {
  it('8 processes × 500 PostToolUse events: every event recorded once, every line whole', async () => {
    const t = tempHome('firstlight-concurrent-');
    try {
      const worker = join(REPO_ROOT, 'test', 'e2e', 'post-tool-use-worker.mjs');
      const home = t.dir;
      const runs = Array.from(
        { length: 8 },
        (_, w) =>
          new Promise<number>((resolve) => {
            const child = spawn(process.execPath, [worker, String(w), '500', home], { stdio: 'inherit' });
            child.on('exit', (code) => resolve(code ?? 1));
          }),
      );
      expect(await Promise.all(runs)).toEqual(Array(8).fill(0));
      const lines = readdirSync(join(home, 'events')).flatMap((f) =>
        readFileSync(join(home, 'events', f), 'utf8')
          .split('\n')
          .filter(Boolean),
      );
      expect(lines).toHaveLength(4000);
      const ids = lines.map((l) => JSON.parse(l).tool_use_id as string);
      expect(new Set(ids).size).toBe(4000);
      for (let w = 0; w < 8; w++) for (let i = 0; i < 500; i++) expect(ids).toContain(`w${w}-${i}`);
    } finally {
      t.dispose();
    }
  }, 120_000);
});
