/**
 * The PreToolUse gate against adversarial transcripts, through the built CLI's `hook
 * pre-tool-use` (a real process, as a host runs it). Every denial must still answer, fast.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PENDING_WAIT_ENV } from '../../src/host/index.js';
import { run, tempDir } from '../helpers/index.js';
import { CLI_UNDER_TEST, cli, figure } from './helpers.js';

let work: { dir: string; dispose: () => void };
beforeAll(() => {
  work = tempDir('firstlight-r-gate-');
});
afterAll(() => work.dispose());

const SESSION = 'sess-now';
const PACKET = JSON.stringify({
  schema_version: 1,
  required_first_call: 'bootstrap_session',
  mind_contract_available: true,
});

const call = (extra: Record<string, unknown> = {}, id = 'toolu_1') => ({
  type: 'assistant',
  sessionId: SESSION,
  message: {
    role: 'assistant',
    content: [{ type: 'tool_use', id, name: 'mcp__firstlight__bootstrap_session', input: {} }],
  },
  ...extra,
});
const result = (extra: Record<string, unknown> = {}, id = 'toolu_1') => ({
  type: 'user',
  sessionId: SESSION,
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: PACKET }] },
  ...extra,
});

function transcript(name: string, lines: unknown[]): string {
  const file = join(work.dir, `${name}.jsonl`);
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return file;
}

async function gate(transcriptPath: string) {
  const out = await cli(['hook', 'pre-tool-use', '--host', 'claude', '--home', join(work.dir, 'home')], {
    input: JSON.stringify({
      session_id: SESSION,
      transcript_path: transcriptPath,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf build' },
    }),
    timeoutMs: 20_000,
  });
  const reason = out.stdout
    ? (JSON.parse(out.stdout).hookSpecificOutput?.permissionDecisionReason as string)
    : null;
  return {
    allowed: out.status === 0 && out.stdout === '',
    reason,
    ms: out.ms,
    status: out.status,
    signal: out.signal,
  };
}

describe('gate adversarial transcripts', () => {
  it("control: this session's call in an assistant line and its result in a user line allows", async () => {
    expect((await gate(transcript('control', [call(), result()]))).allowed).toBe(true);
  });

  it('a FIFO as transcript_path is answered at once (deny, fail closed), never waited on', async ({
    task,
  }) => {
    const fifo = join(work.dir, 'transcript.fifo');
    await run('mkfifo', [fifo]);
    const out = await gate(fifo);
    figure(task, 'FIFO answer ms', out.ms);
    expect(out.signal).toBeNull();
    expect(out.allowed).toBe(false);
    expect(out.reason).toMatch(/not a regular file/);
    expect(out.ms).toBeLessThan(10_000);
  });

  it("a FIFO where firstlight's bootstrap record would be is not read (the gate still answers)", async ({
    task,
  }) => {
    const records = join(work.dir, 'home', 'cache', 'bootstraps');
    mkdirSync(records, { recursive: true });
    await run('mkfifo', [
      join(records, `${createHash('sha256').update(SESSION, 'utf8').digest('hex')}.json`),
    ]);
    try {
      const out = await gate(transcript('record-fifo', [call(), result()]));
      figure(task, 'record FIFO answer ms', out.ms);
      expect(out.signal).toBeNull();
      expect(out.allowed).toBe(true);
    } finally {
      rmSync(records, { recursive: true, force: true });
    }
  });

  it('a directory as transcript_path denies', async () => {
    expect((await gate(work.dir)).reason).toMatch(/transcript unreadable/);
  });

  // The four rules docs/hosts.md states ("What counts as proof").
  it('rule: proof lines carrying a previous session id do not unlock this session', async () => {
    const old = { sessionId: 'sess-before' };
    const out = await gate(transcript('previous-session', [call(old), result(old)]));
    expect(out.allowed).toBe(false);
    expect(out.reason).toMatch(/no bootstrap_session call/);
  });

  it('rule: a bootstrap only in a sidechain (a subagent) does not unlock the session', async () => {
    const side = { isSidechain: true };
    expect((await gate(transcript('sidechain', [call(side), result(side)]))).allowed).toBe(false);
  });

  it('rule: a tool_result inside an assistant line is not a result', async () => {
    const forged = result({
      type: 'assistant',
      message: { role: 'assistant', content: result().message.content },
    });
    const out = await gate(transcript('result-in-assistant', [call(), forged]));
    expect(out.allowed).toBe(false);
    expect(out.reason).toMatch(/no result yet/);
  });

  it('rule: tool_use and tool_result in one user line prove nothing', async () => {
    const both = {
      type: 'user',
      sessionId: SESSION,
      message: { role: 'user', content: [...call().message.content, ...result().message.content] },
    };
    expect((await gate(transcript('use-and-result-in-user', [both]))).allowed).toBe(false);
  });

  const denied: [string, unknown[]][] = [
    ['a result with no call', [result()]],
    [
      "a result before its call is still the call's only if the call is ours: other tool name",
      [
        {
          ...call(),
          message: {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'mcp__other__bootstrap_session', input: {} }],
          },
        },
        result(),
      ],
    ],
    [
      'mind_contract_available false',
      [
        call(),
        result({
          message: {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"mind_contract_available": false}' },
            ],
          },
        }),
      ],
    ],
    [
      'is_error result',
      [
        call(),
        result({
          message: {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, content: PACKET }],
          },
        }),
      ],
    ],
    [
      "the packet quoted in the user's own prompt",
      [
        {
          type: 'user',
          sessionId: SESSION,
          message: { role: 'user', content: `bootstrap_session said ${PACKET}` },
        },
      ],
    ],
    [
      'a newer failing call after an older success',
      [
        call(),
        result(),
        call({}, 'toolu_2'),
        result(
          {
            message: {
              role: 'user',
              content: [{ type: 'tool_result', tool_use_id: 'toolu_2', is_error: true, content: 'x' }],
            },
          },
          'toolu_2',
        ),
      ],
    ],
  ];
  for (const [what, lines] of denied) {
    it(`denies ${what}`, async () => {
      expect((await gate(transcript(what.replace(/\W+/g, '-'), lines))).allowed).toBe(false);
    });
  }
});

describe('a bootstrap_session result the host has not written yet', () => {
  // Claude Code queues transcript lines and writes them on a timer: the model can call its next
  // tool before the bootstrap_session result is on disk. The gate looks again for a while.
  function startGate(transcriptPath: string, waitMs: number) {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [CLI_UNDER_TEST, 'hook', 'pre-tool-use', '--host', 'claude', '--home', join(work.dir, 'home')],
      { env: { ...process.env, [PENDING_WAIT_ENV]: String(waitMs) }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    child.stdin.end(
      JSON.stringify({
        session_id: SESSION,
        transcript_path: transcriptPath,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'rm -rf build' },
      }),
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const done = once(child, 'close').then(([code]) => ({
      code: code as number,
      stdout,
      ms: performance.now() - started,
    }));
    return { child, done };
  }

  it('allows once the result lands while the gate is looking', async () => {
    const file = transcript('pending-then-result', [call()]);
    // Long enough that the hook is surely still looking when the line lands on a busy machine.
    const { child, done } = startGate(file, 60_000);
    await once(child, 'spawn');
    appendFileSync(file, `${JSON.stringify(result())}\n`);
    const out = await done;
    expect(out.stdout).toBe('');
    expect(out.code).toBe(0);
    expect(out.ms).toBeLessThan(30_000);
  });

  it('denies after the wait when the result never comes, saying it is missing', async () => {
    const { done } = startGate(transcript('pending-forever', [call()]), 300);
    const out = await done;
    expect(out.ms).toBeGreaterThanOrEqual(300);
    const reason = JSON.parse(out.stdout).hookSpecificOutput.permissionDecisionReason as string;
    expect(reason).toMatch(/bootstrap_session was called but has no result yet/);
  });
});
