import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureFromTranscript, extractTranscriptTail, readSelfState } from '../../../src/resume/index.js';
import { REPO_ROOT, tempDir } from '../../helpers/index.js';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'resume');
const fixture = (name: string) => join(FIXTURES, name);

describe('extractTranscriptTail', () => {
  it('collects the last turn’s text across tool calls, skipping empty thinking and earlier turns', () => {
    const tail = extractTranscriptTail(fixture('text-after-tools.jsonl'));
    expect(tail?.stream_tail).toBe(
      'Let me read the gate first.\n\nFound it: the matcher runs before normalizeToolName, so `Bash` never matches the gated pattern. the fix is to normalize first, then',
    );
    expect(tail?.stream_tail).not.toContain('Earlier turn');
    expect(tail?.empty_thinking).toBe(2);
    expect(tail?.thinking_blocks).toBe(0);
    expect(tail?.turn_complete).toBe(true);
    expect(tail?.session_id).toBe('6f1c2a9e-3b7d-4c15-9e0a-8d2f4b6c1a73');
  });

  it('keeps non-empty thinking in order and tolerates a torn last line', () => {
    const tail = extractTranscriptTail(fixture('thinking-and-torn.jsonl'));
    expect(tail?.stream_tail).toBe(
      'if the first message is unrelated the tail is lost... but staleness is worse when it says interrupted mid-thought three weeks later\n\nKeep it by default, and say how old it is.',
    );
    expect(tail?.thinking_blocks).toBe(1);
    expect(tail?.unparsed_lines).toBe(1);
    expect(tail?.stream_tail).not.toContain('being written');
  });

  it('walks past a tool-only turn to the last words, ignoring subagent (sidechain) lines', () => {
    const tail = extractTranscriptTail(fixture('tool-only-last-turn.jsonl'));
    expect(tail?.stream_tail).toBe('The open questions first: clear or keep, per agent or per session.');
    expect(tail?.stream_tail).not.toContain('Subagent');
  });

  it('reads compact JSON (one object per line, as Claude Code writes it): text after tool calls, empty thinking', () => {
    const file = fixture('compact-claude-code.jsonl');
    const expected =
      'Checking the capture path first.\n\nFound it: captureSelfState replaces stream_tail whatever wrote it, so the Stop hook that runs after this very turn overwrites a deliberate tail.\n\nSaved my thoughts. Anything else?';
    for (const chunkBytes of [7, 333, 4096, 64 * 1024]) {
      const tail = extractTranscriptTail(file, { chunkBytes });
      expect(tail?.stream_tail).toBe(expected);
      expect(tail?.empty_thinking).toBe(3);
      expect(tail?.thinking_blocks).toBe(0);
      expect(tail?.turn_complete).toBe(true);
      expect(tail?.session_id).toBe('9b2e4f10-7c3a-4d8e-a1f5-2c6b8d0e4a97');
      // The 37 KB file read is a compact tool_result line: passed over by its head, never parsed.
      expect(tail?.bytes_reread).toBe(0);
      expect(tail?.unparsed_lines).toBe(0);
      // When the user last spoke, and how far back the scan saw no prompt (the Stop hook's rule).
      expect(tail?.last_prompt_at).toBe('2026-11-21T10:10:00.000Z');
      expect(tail?.no_prompt_since).toBe('2026-11-21T10:10:00.000Z');
    }
  });

  it('keeps only the newest maxChars, cut at a word boundary', () => {
    const tail = extractTranscriptTail(fixture('text-after-tools.jsonl'), { maxChars: 40 });
    expect(tail?.stream_tail.length).toBeLessThanOrEqual(40);
    expect(tail?.stream_tail.endsWith('normalize first, then')).toBe(true);
    expect(tail?.stream_tail).not.toContain('Let me read');
  });

  it('gives the same answer whatever the chunk size (lines split across chunks)', () => {
    const whole = extractTranscriptTail(fixture('text-after-tools.jsonl'))?.stream_tail;
    for (const chunkBytes of [7, 64, 333, 4096]) {
      expect(extractTranscriptTail(fixture('text-after-tools.jsonl'), { chunkBytes })?.stream_tail).toBe(
        whole,
      );
    }
  });

  it('reads a long text line that spans many chunks', () => {
    const t = tempDir();
    try {
      const file = join(t.dir, 'long.jsonl');
      const words = Array.from({ length: 6000 }, (_, i) => `word${i}`).join(' '); // ~50 KB
      const lines = [
        { type: 'user', message: { role: 'user', content: 'Write it all out.' } },
        {
          type: 'assistant',
          message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: words }] },
        },
        {
          type: 'user',
          message: { content: [{ type: 'tool_result', tool_use_id: 't', content: 'x'.repeat(40_000) }] },
        },
      ];
      const fd = openSync(file, 'w');
      writeSync(fd, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
      closeSync(fd);
      for (const chunkBytes of [1000, 64 * 1024]) {
        const tail = extractTranscriptTail(file, { chunkBytes, maxChars: 100_000 });
        expect(tail?.stream_tail).toBe(words);
        expect(tail?.turn_complete).toBe(true);
      }
    } finally {
      t.dispose();
    }
  });

  it('returns null for a transcript without assistant words', () => {
    const t = tempDir();
    try {
      const file = join(t.dir, 'empty.jsonl');
      const fd = openSync(file, 'w');
      writeSync(fd, `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'hello' } })}\n{"ty`);
      closeSync(fd);
      expect(extractTranscriptTail(file)).toBeNull();
    } finally {
      t.dispose();
    }
  });
});

describe('extractTranscriptTail on a 50 MB transcript', () => {
  const t = tempDir('firstlight-transcript-');
  const big = join(t.dir, 'big.jsonl');
  let size = 0;

  beforeAll(() => {
    // One long tool-heavy turn: the opening words, ~48 MB of tool results (two of them over the
    // 1 MiB line cap), then the closing words. Finding both means reading the whole file back.
    const fd = openSync(big, 'w');
    const write = (value: unknown) => {
      size += writeSync(fd, `${JSON.stringify(value)}\n`);
    };
    const msg = (type: string, content: unknown, id?: string) => ({
      type,
      isSidechain: false,
      sessionId: 'big-session',
      uuid: `u-${size}`,
      message: { id, role: type, content },
    });
    write(msg('user', 'Earlier prompt.'));
    write(msg('assistant', [{ type: 'text', text: 'Earlier words, not part of the last turn.' }], 'm0'));
    write(msg('user', 'Scan every log file.'));
    write(msg('assistant', [{ type: 'text', text: 'Opening words: scanning the logs now.' }], 'm1'));
    const output = 'log line with some noise 0123456789 '.repeat(2800); // ~100 KB
    for (let i = 0; size < 48 * 1024 * 1024; i++) {
      // Mostly small tool calls; a few Write calls carrying files: 200 KB (re-read and parsed:
      // it might hold words) and 1.4 MB (over the 1 MiB line cap: skipped unread).
      const input =
        i === 100
          ? { content: output.repeat(2) }
          : i === 7 || i === 300
            ? { content: output.repeat(14) }
            : {};
      write(
        msg(
          'assistant',
          [
            {
              type: 'tool_use',
              id: `toolu_${i}`,
              name: i in { 7: 1, 100: 1, 300: 1 } ? 'Write' : 'Bash',
              input,
            },
          ],
          `m${i + 2}`,
        ),
      );
      write(
        msg('user', [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: output, is_error: false }]),
      );
    }
    write(msg('assistant', [{ type: 'thinking', thinking: '', signature: 'sig' }], 'mlast'));
    write(
      msg(
        'assistant',
        [{ type: 'text', text: 'Closing words: the errors all come from one host, which means' }],
        'mlast',
      ),
    );
    while (size < 50 * 1024 * 1024) write({ type: 'progress', data: 'x'.repeat(4096) });
    closeSync(fd);
  });
  afterAll(() => t.dispose());

  it('reads from the end within a small memory bound and finds the whole last turn', () => {
    const tail = extractTranscriptTail(big);
    expect(size).toBeGreaterThanOrEqual(50 * 1024 * 1024);
    expect(tail?.stream_tail).toBe(
      'Opening words: scanning the logs now.\n\nClosing words: the errors all come from one host, which means',
    );
    expect(tail?.turn_complete).toBe(true);
    expect(tail?.oversize_lines).toBe(2);
    // It had to read back through the whole turn, but never held more than a chunk plus one line
    // (the process-level bound, max RSS, is measured in test/e2e/resume.test.ts and bench/resume).
    expect(tail?.bytes_read).toBeGreaterThan(48 * 1024 * 1024);
    expect(tail?.peak_buffer_bytes).toBeLessThanOrEqual(64 * 1024 + 1024 * 1024);
    // Tool results (most of the file) were passed over by their head; only the 200 KB Write was re-read.
    expect(tail?.bytes_reread).toBeGreaterThan(200_000);
    expect(tail?.bytes_reread).toBeLessThan(300_000);
  });

  it('reads only the end when the last turn is near it', () => {
    const tail = extractTranscriptTail(big, { maxChars: 40 });
    // The newest 40 characters, minus the partial word at the front.
    expect(tail?.stream_tail).toBe('all come from one host, which means');
    // Only the ~2 MB of progress lines after the closing words, not the 48 MB before them.
    expect(tail?.bytes_read).toBeLessThan(3 * 1024 * 1024);
  });
});

describe('captureFromTranscript', () => {
  it('stores the extracted tail for the Stop hook, keeping anchors, keyed by the session', async () => {
    const t = tempDir();
    try {
      const result = await captureFromTranscript({
        home: t.dir,
        transcriptPath: fixture('text-after-tools.jsonl'),
        sessionId: 'sess-1',
        source: 'stop',
        now: new Date('2026-11-20T11:00:00Z'),
      });
      expect(result.captured).toBe(true);
      const read = readSelfState(join(t.dir, 'self-state.json'));
      expect(read.status).toBe('ok');
      if (read.status !== 'ok') return;
      expect(read.state.stream_tail.endsWith('normalize first, then')).toBe(true);
      expect(read.state.source).toBe('stop');
      expect(read.state.sessions['sess-1']?.stream_tail).toBe(read.state.stream_tail);
    } finally {
      t.dispose();
    }
  });

  it('adds Stop’s last_assistant_message when the transcript lags behind it', async () => {
    const t = tempDir();
    try {
      const result = await captureFromTranscript({
        home: t.dir,
        transcriptPath: fixture('thinking-and-torn.jsonl'),
        lastAssistantMessage: 'This line was being written when the hook read the file',
        source: 'stop',
        now: new Date(),
      });
      expect(result.captured && result.state.stream_tail.endsWith('when the hook read the file')).toBe(true);
    } finally {
      t.dispose();
    }
  });

  it('reports, never throws, when there is no transcript and nothing else to go on', async () => {
    const t = tempDir();
    try {
      const result = await captureFromTranscript({
        home: t.dir,
        transcriptPath: join(t.dir, 'missing.jsonl'),
        source: 'pre-compact',
        now: new Date(),
      });
      expect(result).toEqual({ captured: false, reason: `no transcript at ${join(t.dir, 'missing.jsonl')}` });
      expect(readSelfState(join(t.dir, 'self-state.json')).status).toBe('missing');
    } finally {
      t.dispose();
    }
  });
});
