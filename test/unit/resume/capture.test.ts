import { appendFileSync, copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  captureFromTranscript,
  internalize,
  readSelfState,
  type SelfState,
} from '../../../src/resume/index.js';
import { REPO_ROOT, tempDir } from '../../helpers/index.js';

// The fixture's last turn: prompt at 10:10:00, internalize called at 10:12:00, then
// "Saved my thoughts. Anything else?" at 10:12:02 — the wrap-up the Stop hook must not keep.
const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'resume', 'compact-claude-code.jsonl');
const SESSION = '9b2e4f10-7c3a-4d8e-a1f5-2c6b8d0e4a97';
const DELIBERATE = 'DELIBERATE: the tail has to survive the Stop that follows its own turn';
const at = (time: string) => new Date(`2026-11-21T${time}Z`);

let home: { dir: string; dispose: () => void };
let transcript: string;
beforeEach(() => {
  home = tempDir('firstlight-capture-');
  transcript = join(home.dir, 'transcript.jsonl');
  copyFileSync(FIXTURE, transcript);
});
afterEach(() => home.dispose());

const state = (): SelfState => {
  const read = readSelfState(join(home.dir, 'self-state.json'));
  if (read.status !== 'ok') throw new Error(`self-state ${read.status}`);
  return read.state;
};
const store = (sessionId: string | null = null) =>
  internalize({
    home: home.dir,
    streamTail: DELIBERATE,
    anchors: ['deliberate beats mechanical until the user speaks'],
    sessionId,
    fallbackKey: 'connection-1',
    now: at('10:12:00.200'),
  });
const stop = (now: Date, extra: { sessionId?: string | null; transcriptPath?: string | null } = {}) =>
  captureFromTranscript({
    home: home.dir,
    transcriptPath: transcript,
    sessionId: SESSION,
    source: 'stop',
    now,
    ...extra,
  });
/** Appends a later turn in the compact form Claude Code writes. */
const laterTurn = (prompt: string, reply: string) => {
  const line = (type: string, content: unknown, timestamp: string) =>
    JSON.stringify({ sessionId: SESSION, type, message: { role: type, content }, timestamp });
  appendFileSync(
    transcript,
    `${line('user', prompt, '2026-11-21T10:15:00.000Z')}\n${line(
      'assistant',
      [{ type: 'text', text: reply }],
      '2026-11-21T10:15:20.000Z',
    )}\n`,
  );
};

describe('a Stop after internalize', () => {
  it('keeps the deliberate tail the agent stored in the same turn (not its wrap-up line)', async () => {
    await store();
    const result = await stop(at('10:12:03'));
    expect(result.captured && result.kept_deliberate).toBe(true);
    expect(state().stream_tail).toBe(DELIBERATE);
    expect(state().source).toBe('internalize');
    // internalize named no session, so this session's own record (scope: session) took the capture.
    expect(state().sessions[SESSION]?.source).toBe('stop');
    // A PreCompact in the same turn (auto-compaction) leaves it too.
    await captureFromTranscript({
      home: home.dir,
      transcriptPath: transcript,
      sessionId: SESSION,
      source: 'pre-compact',
      now: at('10:12:04'),
    });
    expect(state().stream_tail).toBe(DELIBERATE);
  });

  it('replaces it at the Stop of the next user turn, keeping the anchors', async () => {
    await store();
    await stop(at('10:12:03'));
    laterTurn('Good. Now write the test.', 'Writing the test now: internalize, then stop, then');
    const result = await stop(at('10:15:21'));
    expect(result.captured).toBe(true);
    expect(state().stream_tail).toBe('Writing the test now: internalize, then stop, then');
    expect(state().source).toBe('stop');
    expect(state().anchors.map((a) => a.text)).toEqual(['deliberate beats mechanical until the user speaks']);
  });

  it('protects the per-session record too when internalize named the session', async () => {
    await store(SESSION);
    expect(await stop(at('10:12:03'))).toEqual({
      captured: false,
      reason: 'kept the tail internalized at 2026-11-21T10:12:00.200Z: the user has not spoken since',
    });
    expect(state().sessions[SESSION]?.stream_tail).toBe(DELIBERATE);
    expect(state().session_id).toBe(SESSION);
  });

  it('knows nobody spoke since, even when a long turn stops the scan before the prompt', async () => {
    await store();
    // 40 characters stop the scan at the "Found it" text (10:11:01), before the prompt (10:10:00)
    // but past the internalize call: no prompt can have come after it.
    const result = await captureFromTranscript({
      home: home.dir,
      transcriptPath: transcript,
      sessionId: SESSION,
      source: 'stop',
      now: at('10:12:03'),
      extract: { maxChars: 40 },
    });
    expect(result.captured && result.kept_deliberate).toBe(true);
    expect(state().stream_tail).toBe(DELIBERATE);
  });

  it('lets the newest capture win when the tail came from another session, or nothing can tell', async () => {
    await store('another-session');
    expect((await stop(at('10:12:03'))).captured).toBe(true);
    expect(state().stream_tail.endsWith('Saved my thoughts. Anything else?')).toBe(true);

    // No transcript: the hook cannot see whether the user spoke, so it must not stick.
    await store();
    const blind = await stop(at('10:12:03'), { transcriptPath: null });
    expect(blind.captured).toBe(false); // nothing to capture without a transcript or last message
    const lastMessage = await captureFromTranscript({
      home: home.dir,
      sessionId: SESSION,
      lastAssistantMessage: 'Saved my thoughts. Anything else?',
      source: 'stop',
      now: at('10:12:03'),
    });
    expect(lastMessage.captured).toBe(true);
    expect(state().stream_tail).toBe('Saved my thoughts. Anything else?');
  });

  it('records where a tail came from, in self-state.json', async () => {
    await store();
    const raw = JSON.parse(readFileSync(join(home.dir, 'self-state.json'), 'utf8'));
    expect(raw).toMatchObject({ source: 'internalize', session_id: null, session_key: 'connection-1' });
    laterTurn('next', 'mechanical words');
    await stop(at('10:15:21'));
    const after = JSON.parse(readFileSync(join(home.dir, 'self-state.json'), 'utf8'));
    expect(after).toMatchObject({ source: 'stop', session_id: SESSION, stream_tail: 'mechanical words' });
  });
});

describe('a Stop after internalize, on Codex CLI and Gemini CLI', () => {
  // Both fixtures hold the same turn as the Claude one: prompt at 10:10:00, internalize called at
  // 10:12:00, then "Saved my thoughts. Anything else?" at 10:12:02.
  const hosts = [
    {
      format: 'codex' as const,
      fixture: 'codex-rollout.jsonl',
      session: '0199a2c4-7d1e-7c31-9a55-3f0c2f6e1b10',
      laterTurn: (prompt: string, reply: string) =>
        [
          { type: 'event_msg', payload: { type: 'user_message', message: prompt, images: [] } },
          {
            type: 'response_item',
            payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] },
          },
          {
            type: 'response_item',
            payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: reply }] },
          },
        ].map((line, i) => ({ timestamp: `2026-11-21T10:15:${i === 2 ? '20' : '00'}.000Z`, ...line })),
    },
    {
      format: 'gemini' as const,
      fixture: 'gemini-session.jsonl',
      session: '5b1f0c2e-8a47-4d7e-9a0b-2f3c4d5e6f70',
      laterTurn: (prompt: string, reply: string) => [
        { id: 'u-0009', timestamp: '2026-11-21T10:15:00.000Z', type: 'user', content: [{ text: prompt }] },
        { $set: { lastUpdated: '2026-11-21T10:15:00.000Z' } },
        { id: 'g-0009', timestamp: '2026-11-21T10:15:20.000Z', type: 'gemini', content: reply, thoughts: [] },
      ],
    },
  ];

  for (const host of hosts) {
    it(`keeps the deliberate tail through the turn's own Stop, and replaces it after the next prompt (${host.format})`, async () => {
      copyFileSync(join(REPO_ROOT, 'test', 'fixtures', 'resume', host.fixture), transcript);
      await store();
      const hostStop = (now: Date) =>
        captureFromTranscript({
          home: home.dir,
          transcriptPath: transcript,
          format: host.format,
          sessionId: host.session,
          // Codex's last_assistant_message, Gemini's prompt_response: the wrap-up line itself.
          lastAssistantMessage: 'Saved my thoughts. Anything else?',
          source: 'stop',
          now,
        });
      const kept = await hostStop(at('10:12:03'));
      expect(kept.captured && kept.kept_deliberate).toBe(true);
      expect(state().stream_tail).toBe(DELIBERATE);
      expect(state().source).toBe('internalize');

      appendFileSync(
        transcript,
        host
          .laterTurn('Good. Now write the test.', 'Writing the test now: internalize, then stop, then')
          .map((line) => `${JSON.stringify(line)}\n`)
          .join(''),
      );
      const replaced = await captureFromTranscript({
        home: home.dir,
        transcriptPath: transcript,
        format: host.format,
        sessionId: host.session,
        source: 'stop',
        now: at('10:15:21'),
      });
      expect(replaced.captured).toBe(true);
      expect(state().stream_tail).toBe('Writing the test now: internalize, then stop, then');
      expect(state().anchors.map((a) => a.text)).toEqual([
        'deliberate beats mechanical until the user speaks',
      ]);
    });
  }
});

describe("a Stop whose last_assistant_message joins the turn's texts differently", () => {
  it('stores the words once (Gemini CLI 0.61 prompt_response joins with one newline)', async () => {
    // A real Gemini CLI run (test/fixtures/transcripts/real/gemini): the transcript holds
    // "Checking the shell first." and the last words as two messages; AfterAgent's
    // prompt_response is both joined by "\n", which the "\n\n"-joined tail does not include.
    const real = join(REPO_ROOT, 'test', 'fixtures', 'transcripts', 'real', 'gemini');
    const afterAgent = JSON.parse(
      JSON.parse(readFileSync(join(real, 'hook-inputs', '008-stop.json'), 'utf8')).stdin,
    );
    copyFileSync(join(real, 'session-1.jsonl'), transcript);
    const lastWords = afterAgent.prompt_response.split('\n').at(-1) as string;
    const r = await captureFromTranscript({
      home: home.dir,
      transcriptPath: transcript,
      format: 'gemini',
      sessionId: afterAgent.session_id,
      lastAssistantMessage: afterAgent.prompt_response,
      source: 'stop',
      now: new Date(),
    });
    expect(r.captured).toBe(true);
    expect(state().stream_tail.split(lastWords)).toHaveLength(2);
  });
});
