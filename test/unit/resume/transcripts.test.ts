/**
 * Reading Codex CLI rollouts and Gemini CLI chat files for resumption (the last turn's words and
 * when the user last spoke), from fixtures shaped like the hosts' own files.
 */
import { appendFileSync, copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractTranscriptTail } from '../../../src/resume/index.js';
import { TRANSCRIPT_READERS } from '../../../src/resume/transcripts/index.js';
import { REPO_ROOT, tempDir } from '../../helpers/index.js';

const fixture = (name: string) => join(REPO_ROOT, 'test', 'fixtures', 'resume', name);
const FOUND =
  'Found it: the Stop hook captures the last assistant words of every turn, so the turn that called internalize ends by overwriting the tail with its own wrap-up line.';
const SAVED = 'Saved my thoughts. Anything else?';

let work: { dir: string; dispose: () => void };
beforeEach(() => {
  work = tempDir('firstlight-transcripts-');
});
afterEach(() => work.dispose());

describe('extractTranscriptTail on a Codex CLI rollout', () => {
  it('collects the last turn’s output_text across tool calls, and when the user last spoke', () => {
    for (const chunkBytes of [7, 333, 64 * 1024]) {
      const tail = extractTranscriptTail(fixture('codex-rollout.jsonl'), { format: 'codex', chunkBytes });
      expect(tail?.stream_tail).toBe(`${FOUND}\n\n${SAVED}`);
      expect(tail?.text_blocks).toBe(2);
      expect(tail?.turn_complete).toBe(true);
      expect(tail?.last_prompt_at).toBe('2026-11-21T10:10:00.000Z');
      expect(tail?.unparsed_lines).toBe(0);
    }
  });

  it('walks back past a turn without words, to the session_meta id when it gets there', () => {
    const file = join(work.dir, 'rollout.jsonl');
    copyFileSync(fixture('codex-rollout.jsonl'), file);
    const line = (payload: Record<string, unknown>, type = 'response_item') =>
      `${JSON.stringify({ timestamp: '2026-11-21T10:20:00.000Z', type, payload })}\n`;
    appendFileSync(
      file,
      line({ type: 'user_message', message: 'clean the build', images: [] }, 'event_msg') +
        line({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'clean the build' }] }) +
        line({
          type: 'function_call',
          name: 'shell',
          arguments: '{"command":["make","clean"]}',
          call_id: 'c9',
        }),
    );
    const tail = extractTranscriptTail(file, { format: 'codex' });
    expect(tail?.stream_tail).toBe(`${FOUND}\n\n${SAVED}`);
    expect(tail?.last_prompt_at).toBe('2026-11-21T10:20:00.000Z');
    // Read as Claude Code's format, the same file has no words at all.
    expect(extractTranscriptTail(file)).toBeNull();
  });

  it('takes Codex’s context messages for what they are, not a user prompt', () => {
    const codex = TRANSCRIPT_READERS.codex;
    const message = (text: string) => ({
      timestamp: '2026-11-21T10:00:00.000Z',
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
    });
    expect(
      codex.turn(message('<environment_context>\n  <cwd>/p</cwd>\n</environment_context>'))[0]?.prompt,
    ).toBe(undefined);
    expect(codex.turn(message('# AGENTS.md instructions for /p\n\n<INSTRUCTIONS>…'))[0]?.prompt).toBe(
      undefined,
    );
    expect(codex.turn(message('please clean the build'))[0]?.prompt).toBe(true);
  });
});

describe('extractTranscriptTail on a Gemini CLI chat file', () => {
  it('reads each re-appended message once, its newest version, and when the user last spoke', () => {
    for (const chunkBytes of [7, 333, 64 * 1024]) {
      const tail = extractTranscriptTail(fixture('gemini-session.jsonl'), { format: 'gemini', chunkBytes });
      expect(tail?.stream_tail).toBe(`${FOUND}\n\n${SAVED}`);
      expect(tail?.text_blocks).toBe(2);
      expect(tail?.turn_complete).toBe(true);
      expect(tail?.last_prompt_at).toBe('2026-11-21T10:10:00.000Z');
    }
  });

  it('skips what a rewind undid, and the thought summaries', () => {
    const file = join(work.dir, 'session.jsonl');
    copyFileSync(fixture('gemini-session.jsonl'), file);
    const record = (value: unknown) => `${JSON.stringify(value)}\n`;
    appendFileSync(
      file,
      record({
        id: 'u-0003',
        timestamp: '2026-11-21T10:13:00.000Z',
        type: 'user',
        content: [{ text: 'no, undo' }],
      }) +
        record({
          id: 'g-0004',
          timestamp: '2026-11-21T10:13:05.000Z',
          type: 'gemini',
          content: [{ text: 'thinking about it', thought: true }, { text: 'Undone words.' }],
        }) +
        record({ $rewindTo: 'u-0003' }),
    );
    const tail = extractTranscriptTail(file, { format: 'gemini' });
    expect(tail?.stream_tail).toBe(`${FOUND}\n\n${SAVED}`);
    expect(tail?.last_prompt_at).toBe('2026-11-21T10:10:00.000Z');
  });

  it('reads the older one-document session file, with its session id', () => {
    const file = join(work.dir, 'session-legacy.json');
    const doc = {
      sessionId: '5b1f0c2e-8a47-4d7e-9a0b-2f3c4d5e6f70',
      projectHash: 'a3c9e1f07d2b4c5a8e6f1d2c3b4a5968',
      startTime: '2026-11-21T10:00:00.000Z',
      lastUpdated: '2026-11-21T10:12:02.000Z',
      messages: [
        { id: 'u-1', timestamp: '2026-11-21T10:10:00.000Z', type: 'user', content: [{ text: 'why?' }] },
        { id: 'g-1', timestamp: '2026-11-21T10:11:01.000Z', type: 'gemini', content: FOUND },
        { id: 'g-2', timestamp: '2026-11-21T10:12:02.000Z', type: 'gemini', content: SAVED },
      ],
    };
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const tail = extractTranscriptTail(file, { format: 'gemini' });
    expect(tail?.stream_tail).toBe(`${FOUND}\n\n${SAVED}`);
    expect(tail?.last_prompt_at).toBe('2026-11-21T10:10:00.000Z');
    expect(extractTranscriptTail(file, { format: 'gemini', maxChars: 10 })?.session_id).toBeNull();
    // Walking back to the start (a turn without a prompt) reaches the document's session id.
    writeFileSync(file, JSON.stringify({ ...doc, messages: doc.messages.slice(1) }, null, 2));
    expect(extractTranscriptTail(file, { format: 'gemini' })?.session_id).toBe(doc.sessionId);
  });
});
