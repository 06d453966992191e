import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isFirstlightError } from '../../../src/core/index.js';
import * as resume from '../../../src/resume/index.js';
import {
  captureSelfState,
  cutFront,
  internalize,
  MAX_STORED_ANCHORS,
  MAX_STORED_SESSIONS,
  readSelfState,
} from '../../../src/resume/index.js';
import { tempDir } from '../../helpers/index.js';

let home: { dir: string; dispose: () => void };
let file: string;
beforeEach(() => {
  home = tempDir('firstlight-self-state-');
  file = join(home.dir, 'self-state.json');
});
afterEach(() => home.dispose());

describe('resume surface', () => {
  it('exports the pieces the mind and the host hooks use', () => {
    for (const name of [
      'captureFromTranscript',
      'extractTranscriptTail',
      'internalize',
      'internalizeTool',
      'loadResumption',
      'renderResumption',
      'readSelfState',
    ]) {
      expect(typeof (resume as Record<string, unknown>)[name]).toBe('function');
    }
  });
});

describe('self-state.json', () => {
  it('holds stream_tail, anchors, session_key and captured_at at top level', async () => {
    await internalize({
      home: home.dir,
      streamTail: 'words',
      anchors: [{ text: 'a phrase', trigger: 'decision' }],
      sessionId: 'sess',
      fallbackKey: 'conn',
      now: new Date('2026-11-21T09:00:00Z'),
    });
    const raw = JSON.parse(readFileSync(file, 'utf8'));
    expect(raw).toMatchObject({
      version: 1,
      stream_tail: 'words',
      anchors: [{ text: 'a phrase', trigger: 'decision', captured_at: '2026-11-21T09:00:00.000Z' }],
      session_key: 'sess',
      captured_at: '2026-11-21T09:00:00.000Z',
      source: 'internalize',
    });
    expect(raw.sessions.sess.stream_tail).toBe('words');
  });

  it('loses no anchor when many captures race (cross-process lock, atomic writes)', async () => {
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        internalize({
          home: home.dir,
          streamTail: `tail ${i}`,
          anchors: [`anchor ${i}`],
          fallbackKey: 'x',
          now: new Date(Date.UTC(2026, 10, 21, 9, 0, i)),
        }),
      ),
    );
    const read = readSelfState(file);
    expect(read.status).toBe('ok');
    if (read.status !== 'ok') return;
    expect(new Set(read.state.anchors.map((a) => a.text)).size).toBe(12);
  });

  it('moves a repeated anchor to the newest place and caps what it keeps', async () => {
    const now = new Date();
    await internalize({ home: home.dir, streamTail: 't', anchors: ['x', 'y'], fallbackKey: 'k', now });
    await internalize({ home: home.dir, streamTail: 't', anchors: ['x'], fallbackKey: 'k', now });
    let read = readSelfState(file);
    expect(read.status === 'ok' && read.state.anchors.map((a) => a.text)).toEqual(['y', 'x']);
    const many = Array.from({ length: 20 }, (_, i) => `m${i}`);
    for (let i = 0; i < 4; i++) {
      await internalize({
        home: home.dir,
        streamTail: 't',
        anchors: many.map((m) => `${m}-${i}`),
        fallbackKey: 'k',
        now,
      });
    }
    read = readSelfState(file);
    expect(read.status === 'ok' && read.state.anchors.length).toBe(MAX_STORED_ANCHORS);
    expect(read.status === 'ok' && read.state.anchors.at(-1)?.text).toBe('m19-3');
  });

  it('keeps the newest per-session records only', async () => {
    for (let i = 0; i < MAX_STORED_SESSIONS + 5; i++) {
      await captureSelfState(file, {
        streamTail: `s${i}`,
        sessionKey: `s${i}`,
        sessionId: `s${i}`,
        source: 'stop',
        now: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
      });
    }
    const read = readSelfState(file);
    if (read.status !== 'ok') throw new Error('unreadable');
    expect(Object.keys(read.state.sessions)).toHaveLength(MAX_STORED_SESSIONS);
    expect(read.state.sessions.s0).toBeUndefined();
    expect(read.state.sessions[`s${MAX_STORED_SESSIONS + 4}`]?.stream_tail).toBe(
      `s${MAX_STORED_SESSIONS + 4}`,
    );
  });

  it('moves a malformed file aside instead of overwriting it', async () => {
    writeFileSync(file, '{ not json');
    const result = await internalize({
      home: home.dir,
      streamTail: 'fresh',
      fallbackKey: 'k',
      now: new Date(5),
    });
    expect(result.warnings[0]).toMatch(/malformed; kept it as .*self-state\.malformed-5\.json/);
    expect(readFileSync(join(home.dir, 'self-state.malformed-5.json'), 'utf8')).toBe('{ not json');
    expect(readdirSync(home.dir).sort()).toContain('self-state.json');
    expect(readSelfState(file).status).toBe('ok');
  });

  it('refuses empty or oversized input with a hint naming the field', async () => {
    const attempt = (streamTail: string, anchors: string[] = []) =>
      internalize({ home: home.dir, streamTail, anchors, fallbackKey: 'k', now: new Date() }).then(
        () => undefined,
        (error: unknown) => error,
      );
    const empty = await attempt('  ');
    expect(isFirstlightError(empty) && empty.hint).toMatch(/stream_tail/);
    const long = await attempt('ok', ['y'.repeat(501)]);
    expect(isFirstlightError(long) && long.code).toBe('INVALID_ARGUMENT');
    expect(readSelfState(file).status).toBe('missing');
  });
});

describe('cutFront', () => {
  it('keeps the newest characters from a word boundary', () => {
    expect(cutFront('one two three four', 10)).toBe('four');
    expect(cutFront('short', 10)).toBe('short');
    expect(cutFront('nowhitespaceatall', 5)).toBe('atall');
  });
});
