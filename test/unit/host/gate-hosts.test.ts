/**
 * The gate on each host, through the real hook runner with each host's payload and transcript
 * format (fixtures in test/fixtures/transcripts/<host>/, shaped like the hosts' own files).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homePaths } from '../../../src/core/index.js';
import { type HostId, PENDING_WAIT_ENV, proveBootstrap, runHook } from '../../../src/host/index.js';
import { readBootstrapRecord, writeBootstrapRecord } from '../../../src/mind/bootstrap-record/index.js';
import { internalize, readSelfState } from '../../../src/resume/index.js';
import { ceilingFrom, REPO_ROOT, tempDir, tempHome } from '../../helpers/index.js';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'transcripts');
const MB = 1024 * 1024;

let work: { dir: string; dispose: () => void };
beforeAll(() => {
  work = tempDir('firstlight-gate-hosts-');
});
afterAll(() => work.dispose());

async function run(host: HostId | undefined, payload: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) {
  return runHook({
    event: 'pre-tool-use',
    ...(host ? { host } : {}),
    home: work.dir,
    // What a transcript proves, not the wait for a result the host has not flushed (that has
    // its own test in test/reliability/gate.test.ts).
    env: { [PENDING_WAIT_ENV]: '0', ...env },
    cwd: work.dir,
    stdin: JSON.stringify(payload),
  });
}

describe('Codex CLI gate (rollout transcript)', () => {
  const fx = (name: string) => join(FIXTURES, 'codex', `${name}.jsonl`);
  // Codex's PreToolUse input (codex-rs/hooks/schema/generated/pre-tool-use.command.input.schema.json).
  // The session the rollout opens (its session_meta): only that session's lines prove anything.
  const sessionOf = (transcript: string) =>
    /"type":"session_meta","payload":\{.*?"id":"([^"]+)"/.exec(readFileSync(transcript, 'utf8'))![1]!;
  const payload = (transcript: string) => ({
    cwd: '/work/p',
    hook_event_name: 'PreToolUse',
    model: 'gpt-5-codex',
    permission_mode: 'default',
    session_id: sessionOf(transcript),
    tool_input: { command: 'rm -rf build' },
    tool_name: 'Bash',
    tool_use_id: 'call_sh9',
    transcript_path: transcript,
  });
  const gate = async (name: string) => {
    const out = await run('codex', payload(fx(name)));
    const reason = out.stdout ? JSON.parse(out.stdout).hookSpecificOutput.permissionDecisionReason : null;
    return { allowed: out.stdout === '' && out.exitCode === 0, reason: reason as string | null };
  };

  for (const name of [
    'success-structured',
    'success-content',
    'success-namespace',
    'success-legacy-name',
    // Codex 0.169's rollout: `Wall time: … seconds\nOutput:\n{…}` plus an `item_completed`
    // McpToolCall event with the structured result.
    'wrapped-0169',
    // The same with only the wrapped text (no structured event).
    'wrapped-0169-text-only',
  ])
    it(`allows after a successful call (${name})`, async () => {
      expect(await gate(name)).toEqual({ allowed: true, reason: null });
    });

  it('the structured McpToolCall record outranks the text the model was shown', async () => {
    // The output text says success; the structured event says the call failed or the mind is degraded.
    expect((await gate('wrapped-0169-structured-error')).reason).toMatch(
      /bootstrap_session returned an error/,
    );
    expect((await gate('wrapped-0169-structured-false')).reason).toMatch(/mind_contract_available: false/);
  });

  it('names the tool as Codex shows it to the model', async () => {
    expect((await gate('no-result')).reason).toContain('(mcp__firstlight__bootstrap_session)');
  });

  const denied: [string, RegExp][] = [
    ['contract-false', /mind_contract_available: false/],
    ['call-error', /returned an error/],
    ['is-error', /not a JSON packet/],
    ['no-result', /no result yet/],
    ['other-server', /no bootstrap_session call/],
    ['other-tool-only', /no bootstrap_session call/],
  ];
  for (const [name, why] of denied)
    it(`denies for ${name}`, async () => {
      const result = await gate(name);
      expect(result.allowed).toBe(false);
      expect(result.reason).toMatch(why);
    });
});

describe('Gemini CLI gate (chat recording)', () => {
  const fx = (name: string) => join(FIXTURES, 'gemini', name);
  // Gemini's BeforeTool input (docs/hooks/reference.md).
  const payload = (transcript: string, tool = 'run_shell_command') => ({
    session_id: '5b1f0c2e-8a47-4d7e-9a0b-2f3c4d5e6f70',
    transcript_path: transcript,
    cwd: '/work/p',
    hook_event_name: 'BeforeTool',
    timestamp: '2026-11-22T05:01:00.000Z',
    tool_name: tool,
    tool_input: { command: 'rm -rf build' },
  });
  const gate = async (name: string) => {
    const out = await run('gemini', payload(fx(name)));
    const parsed = out.stdout ? JSON.parse(out.stdout) : null;
    return {
      allowed: out.stdout === '' && out.exitCode === 0,
      decision: parsed?.decision,
      reason: parsed?.reason,
    };
  };

  for (const name of [
    'success.jsonl',
    'success-bare-name.jsonl',
    'success-reappended.jsonl',
    'success-set-messages.jsonl',
    'legacy-success.json',
    // Gemini CLI 0.61 wraps a tool's output in <untrusted_context> tags.
    'success-untrusted-context.jsonl',
  ])
    it(`allows after a successful call (${name})`, async () => {
      expect((await gate(name)).allowed).toBe(true);
    });

  const denied: [string, RegExp][] = [
    ['contract-false.jsonl', /mind_contract_available: false/],
    ['is-error.jsonl', /returned an error/],
    ['cancelled.jsonl', /was cancelled/],
    ['no-result.jsonl', /no result yet/],
    ['other-server.jsonl', /no bootstrap_session call/],
    // Another server's tool under the same bare name: Gemini's displayName names the server.
    ['other-server-bare-name.jsonl', /no bootstrap_session call/],
    ['legacy-contract-false.json', /mind_contract_available: false/],
  ];
  for (const [name, why] of denied)
    it(`denies for ${name}, in Gemini's shape`, async () => {
      const result = await gate(name);
      expect(result.allowed).toBe(false);
      expect(result.decision).toBe('deny');
      expect(result.reason).toMatch(why);
      // Gemini CLI shows our tools to the model as mcp_<server>_<tool>.
      expect(result.reason).toContain('(mcp_firstlight_bootstrap_session)');
      expect(result.reason).not.toContain('mcp__firstlight__');
    });

  it('denies a torn last record, and a legacy document larger than the scan window', async () => {
    const torn = join(work.dir, 'torn.jsonl');
    const text = readFileSync(fx('success.jsonl'), 'utf8');
    appendFileSync(torn, text.slice(0, text.lastIndexOf('"status"')));
    expect((await run('gemini', payload(torn))).stdout).toMatch(/"decision":"deny"/);
    expect(proveBootstrap(fx('legacy-success.json'), 1024, 'gemini')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/one JSON document larger than/),
    });
  });

  it('a 60 MB session: the proof near the end is found, fast', () => {
    const big = join(work.dir, 'big.jsonl');
    const lines = readFileSync(fx('success.jsonl'), 'utf8').trimEnd().split('\n');
    const filler = `${JSON.stringify({ id: 'f', type: 'user', content: [{ text: 'x'.repeat(4000) }] })}\n`;
    appendFileSync(big, `${lines.slice(0, 3).join('\n')}\n`);
    const block = filler.repeat(Math.ceil(MB / filler.length));
    for (let i = 0; i < 60; i++) appendFileSync(big, block);
    appendFileSync(big, `${lines.slice(3).join('\n')}\n`);
    // Baseline: reading the whole file once, on this machine as loaded as it is now.
    let started = performance.now();
    readFileSync(big);
    const readMs = performance.now() - started;
    started = performance.now();
    expect(proveBootstrap(big, 32 * MB, 'gemini')).toMatchObject({ ok: true });
    expect(performance.now() - started).toBeLessThan(ceilingFrom(readMs, { factor: 10, floorMs: 2000 }));
  });
});

describe("hosts gated on firstlight's own record (no transcript can prove bootstrap)", () => {
  // Each host's documented PreToolUse input: Copilot CLI's hooks reference (camelCase), VS Code's
  // hooksCommandTypes.ts (camelCase common fields, snake_case tool fields), Cursor's hooks docs.
  const cases: {
    host: HostId;
    id: string;
    payload: Record<string, unknown>;
    denied: (stdout: string) => string;
  }[] = [
    {
      host: 'copilot',
      id: 'cop-rec-1',
      payload: {
        sessionId: 'cop-rec-1',
        timestamp: 1760000000000,
        cwd: '/w',
        toolName: 'bash',
        toolArgs: '{"command":"ls"}',
      },
      denied: (stdout) => JSON.parse(stdout).permissionDecisionReason,
    },
    {
      host: 'vscode',
      id: 'vscode-chat-session://local/dnMtcmVjLTE=',
      payload: {
        timestamp: '2026-11-22T06:00:00.000Z',
        cwd: '/w',
        sessionId: 'vscode-chat-session://local/dnMtcmVjLTE=',
        hookEventName: 'PreToolUse',
        tool_name: 'run_in_terminal',
        tool_input: { command: 'ls' },
        tool_use_id: 't1',
      },
      denied: (stdout) => JSON.parse(stdout).hookSpecificOutput.permissionDecisionReason,
    },
    {
      host: 'cursor',
      id: 'cur-rec-1',
      payload: {
        conversation_id: 'cur-rec-1',
        generation_id: 'g1',
        hook_event_name: 'preToolUse',
        workspace_roots: ['/w'],
        tool_name: 'Shell',
        tool_input: { command: 'ls' },
      },
      denied: (stdout) => JSON.parse(stdout).agent_message,
    },
  ];

  for (const { host, id, payload, denied } of cases) {
    it(`${host}: denies until the record holds the session, naming the exact call; then allows`, async () => {
      // No --host: the payload's shape picks the host (the shared .claude/settings.json case).
      const before = await run(undefined, payload);
      expect(before.exitCode).toBe(0);
      const reason = denied(before.stdout);
      expect(reason).toContain(`no record of bootstrap_session succeeding for session ${JSON.stringify(id)}`);
      expect(reason).toContain(`Call bootstrap_session(session_id: ${JSON.stringify(id)})`);
      await writeBootstrapRecord(work.dir, id, { now: new Date(), via: 'bootstrap_session' });
      expect(await run(undefined, payload)).toMatchObject({ stdout: '', exitCode: 0 });
      expect(await run(host, payload)).toMatchObject({ stdout: '', exitCode: 0 });
    });
  }

  it("names the host's own spelling of bootstrap_session where it is known", async () => {
    const out = await run('copilot', { sessionId: 'spell', toolName: 'bash', toolArgs: '{}' });
    expect(JSON.parse(out.stdout).permissionDecisionReason).toContain('(firstlight-bootstrap_session)');
    const vs = await run('vscode', {
      sessionId: 'spell',
      hookEventName: 'PreToolUse',
      tool_name: 'editFiles',
    });
    expect(JSON.parse(vs.stdout).hookSpecificOutput.permissionDecisionReason).toContain(
      '(mcp_firstlight_bootstrap_session)',
    );
  });

  it('denies when the input carries no session id, and says how to bypass', async () => {
    const out = await run('copilot', { toolName: 'bash', toolArgs: '{}' });
    expect(JSON.parse(out.stdout).permissionDecisionReason).toMatch(
      /carries no session id \(sessionId\).*FIRSTLIGHT_GATE_BYPASS=1/,
    );
  });

  it('a record for another session proves nothing; the bypass and ungated tools pass', async () => {
    await writeBootstrapRecord(work.dir, 'other', { now: new Date(), via: 'bootstrap_session' });
    const payload = { conversation_id: 'mine', hook_event_name: 'preToolUse', tool_name: 'Shell' };
    expect(JSON.parse((await run('cursor', payload)).stdout).permission).toBe('deny');
    expect((await run('cursor', payload, { FIRSTLIGHT_GATE_BYPASS: '1' })).stdout).toBe('');
    expect((await run('cursor', { ...payload, tool_name: 'Read' })).stdout).toBe('');
  });

  it("firstlight's own tools are never gated (Copilot names them <server>-<tool>)", async () => {
    const out = await run('copilot', {
      sessionId: 'own',
      toolName: 'firstlight-bootstrap_session',
      toolArgs: '{"session_id":"own"}',
    });
    expect(out).toMatchObject({ stdout: '', exitCode: 0 });
  });

  it('the legacy get_system_prompt record counts too', async () => {
    await writeBootstrapRecord(work.dir, 'legacy', { now: new Date(), via: 'get_system_prompt' });
    expect((await run('copilot', { sessionId: 'legacy', toolName: 'edit', toolArgs: '{}' })).stdout).toBe('');
  });
});

describe('transcript hosts accept the record too', () => {
  it('Claude Code: a transcript with no proof, but a record for the session, allows', async () => {
    const payload = {
      session_id: 'claude-rec',
      transcript_path: join(FIXTURES, 'no-result.jsonl'),
      tool_name: 'Bash',
      tool_input: {},
    };
    expect(JSON.parse((await run('claude', payload)).stdout).hookSpecificOutput.permissionDecision).toBe(
      'deny',
    );
    await writeBootstrapRecord(work.dir, 'claude-rec', { now: new Date(), via: 'bootstrap_session' });
    expect(await run('claude', payload)).toMatchObject({ stdout: '', exitCode: 0 });
  });

  it("a transcript's proof is kept as the session's record, so later calls need not scan again", async () => {
    const home = tempHome('firstlight-gate-kept-');
    try {
      const call = (session: string, transcript: string) =>
        runHook({
          event: 'pre-tool-use',
          host: 'claude',
          home: home.dir,
          env: { [PENDING_WAIT_ENV]: '0' },
          cwd: home.dir,
          stdin: JSON.stringify({
            session_id: session,
            transcript_path: join(FIXTURES, `${transcript}.jsonl`),
            tool_name: 'Bash',
            tool_input: {},
          }),
        });
      expect(readBootstrapRecord(home.dir, 'kept')).toBeNull();
      expect(await call('kept', 'success-blocks')).toMatchObject({ stdout: '', exitCode: 0 });
      expect(readBootstrapRecord(home.dir, 'kept')).toMatchObject({ session_id: 'kept', via: 'transcript' });
      // The record answers now, whatever the transcript holds (here: no result yet).
      expect(await call('kept', 'no-result')).toMatchObject({ stdout: '', exitCode: 0 });
      // Another session proves nothing by it.
      const other = JSON.parse((await call('other', 'no-result')).stdout);
      expect(other.hookSpecificOutput.permissionDecision).toBe('deny');
      expect(readBootstrapRecord(home.dir, 'other')).toBeNull();
    } finally {
      home.dispose();
    }
  });
});

describe('Gemini CLI AfterAgent (stop) capture', () => {
  it("stores the turn's prompt_response as the resumption tail", async () => {
    const home = tempHome('firstlight-gemini-stop-');
    try {
      const words = 'I renamed the gate module; the torn-line tests are next.';
      const out = await runHook({
        event: 'stop',
        host: 'gemini',
        home: home.dir,
        env: {},
        cwd: home.dir,
        stdin: JSON.stringify({
          session_id: 'gm-stop',
          transcript_path: join(FIXTURES, 'gemini', 'success.jsonl'),
          cwd: '/work/p',
          hook_event_name: 'AfterAgent',
          timestamp: '2026-11-22T05:02:00.000Z',
          prompt: 'rename the gate module',
          prompt_response: words,
          stop_hook_active: false,
        }),
      });
      expect(out).toMatchObject({ stdout: '', exitCode: 0 });
      const state = readSelfState(homePaths(home.dir).selfState);
      expect(state.status).toBe('ok');
      expect(state.status === 'ok' && state.state.stream_tail).toBe(words);
    } finally {
      home.dispose();
    }
  });
});

describe('Stop capture reads Codex and Gemini transcripts (a deliberate tail survives its turn)', () => {
  const RESUME = join(REPO_ROOT, 'test', 'fixtures', 'resume');
  const DELIBERATE = 'the thought internalize stored, mid-turn';
  const cases: { host: HostId; transcript: string; payload: Record<string, unknown> }[] = [
    {
      host: 'codex',
      transcript: 'codex-rollout.jsonl',
      // Codex's Stop input (codex-rs/hooks/schema/generated/stop.command.input.schema.json).
      payload: {
        session_id: '0199a2c4-7d1e-7c31-9a55-3f0c2f6e1b10',
        hook_event_name: 'Stop',
        model: 'gpt-5-codex',
        permission_mode: 'default',
        stop_hook_active: false,
        last_assistant_message: 'Saved my thoughts. Anything else?',
      },
    },
    {
      host: 'gemini',
      transcript: 'gemini-session.jsonl',
      payload: {
        session_id: '5b1f0c2e-8a47-4d7e-9a0b-2f3c4d5e6f70',
        hook_event_name: 'AfterAgent',
        timestamp: '2026-11-21T10:12:03.000Z',
        prompt: 'Why does the next session wake up to my wrap-up line instead of my thought?',
        prompt_response: 'Saved my thoughts. Anything else?',
        stop_hook_active: false,
      },
    },
  ];
  for (const { host, transcript, payload } of cases)
    it(`keeps the tail internalize stored in the same turn (${host})`, async () => {
      const home = tempHome(`firstlight-${host}-stop-`);
      try {
        await internalize({
          home: home.dir,
          streamTail: DELIBERATE,
          now: new Date('2026-11-21T10:12:00.200Z'),
        });
        const out = await runHook({
          event: 'stop',
          host,
          home: home.dir,
          env: {},
          cwd: home.dir,
          clock: () => new Date('2026-11-21T10:12:03.000Z'),
          stdin: JSON.stringify({
            ...payload,
            cwd: '/home/alex/src/firstlight',
            transcript_path: join(RESUME, transcript),
          }),
        });
        expect(out.exitCode).toBe(0);
        const state = readSelfState(homePaths(home.dir).selfState);
        expect(state.status === 'ok' && state.state.stream_tail).toBe(DELIBERATE);
      } finally {
        home.dispose();
      }
    });
});
