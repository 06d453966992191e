import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMind } from '../../../src/mind/index.js';
import { ROTATE_BYTES } from '../../../src/mind/session-files.js';
import { exampleHomeCopy } from '../../helpers/index.js';

/** The session starts in the log, oldest first. */
const starts = (home: string) =>
  readFileSync(join(home, 'sessions.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { session_id: string | null; at: string });

const warningsLog = () => {
  const warnings: string[] = [];
  return { warnings, log: { error() {}, warn: (m: string) => warnings.push(m), info() {}, debug() {} } };
};

describe('session log behind bootstrap_session', () => {
  const temps: (() => void)[] = [];
  const home = () => {
    const h = exampleHomeCopy();
    temps.push(h.dispose);
    return h.dir;
  };
  afterEach(() => {
    for (const dispose of temps.splice(0)) dispose();
  });

  it('appends a new session’s start before answering, and the next session sees it', async () => {
    const dir = home();
    let now = new Date('2026-11-20T10:00:00Z');
    const mind = createMind({ home: dir, clock: () => now });
    expect((await mind.bootstrap({ sessionId: 'a' })).context.last_session).toBeNull();
    expect(starts(dir)).toEqual([{ session_id: 'a', at: '2026-11-20T10:00:00.000Z' }]);
    now = new Date('2026-11-20T11:00:00Z');
    const b = await mind.bootstrap({ sessionId: 'b' });
    expect(b.context.last_session?.session_id).toBe('a');
    expect(b.context.last_session?.human).toBe('1 hour ago');
    expect(starts(dir).map((s) => s.session_id)).toEqual(['a', 'b']);
    mind.close();
  });

  it('appends one line per new session, none for a repeat, and reads other processes’ starts', async () => {
    const dir = home();
    let minute = 0;
    const clock = () => new Date(Date.UTC(2026, 10, 20, 10, minute++));
    const one = createMind({ home: dir, clock });
    const other = createMind({ home: dir, clock });
    await Promise.all([1, 2, 3].map((i) => one.bootstrap({ sessionId: `s${i}` })));
    // Another server on the same home records its own session; `one` sees it at once.
    await other.bootstrap({ sessionId: 'elsewhere' });
    expect(starts(dir).map((s) => s.session_id)).toEqual(['s1', 's2', 's3', 'elsewhere']);
    // A repeat of the current session is the same session, not a new start.
    const again = await createMind({ home: dir, clock }).bootstrap({ sessionId: 'elsewhere' });
    expect(again.context.last_session?.session_id).toBe('s3');
    const fromOne = await one.bootstrap({ sessionId: 'elsewhere' });
    expect(fromOne.context.last_session?.session_id).toBe('s3');
    expect(starts(dir)).toHaveLength(4);
    one.close();
    other.close();
  });

  it('ties an id-less call to the session the SessionStart hook just recorded', async () => {
    const dir = home();
    let now = new Date('2026-11-20T10:00:00Z');
    const clock = () => now;
    // Yesterday's session, then today's hook (it knows the host session id) records "today".
    await createMind({ home: dir, clock }).bootstrap({
      sessionId: 'yesterday',
      sessionKey: 'hook:yesterday',
    });
    now = new Date('2026-11-21T10:00:00Z');
    await createMind({ home: dir, clock }).bootstrap({ sessionId: 'today', sessionKey: 'hook:today' });
    // The host's MCP server connected at about the same time; the model calls without an id.
    now = new Date('2026-11-21T10:05:00Z');
    const server = createMind({ home: dir, clock });
    const connectedAt = new Date('2026-11-21T09:59:50Z');
    const context = await server.context({ sessionKey: 'conn-1', preview: true, connectedAt });
    expect(context.last_session?.session_id).toBe('yesterday');
    const packet = await server.bootstrap({ sessionKey: 'conn-1', connectedAt });
    expect(packet.context.last_session?.session_id).toBe('yesterday');
    expect(packet.context.last_session?.human).toBe('1 day ago');
    expect(starts(dir).map((s) => s.session_id)).toEqual(['yesterday', 'today']);
    // A connection that began long after the newest start is a session of its own.
    now = new Date('2026-11-21T15:00:00Z');
    const later = await server.bootstrap({ sessionKey: 'conn-2', connectedAt: now });
    expect(later.context.last_session?.session_id).toBe('today');
    expect(starts(dir).map((s) => s.session_id)).toEqual(['yesterday', 'today', null]);
    // The id-less session asks again on its connection: same answer, no new start.
    const repeat = await server.bootstrap({ sessionKey: 'conn-2', connectedAt: now });
    expect(repeat.context.last_session?.session_id).toBe('today');
    expect(starts(dir)).toHaveLength(3);
    server.close();
  });

  it('reports a start it cannot record and never fails the call', async () => {
    const dir = home();
    const { warnings, log } = warningsLog();
    // A directory where sessions.jsonl should be: it can be neither read nor appended to.
    mkdirSync(join(dir, 'sessions.jsonl'));
    const mind = createMind({ home: dir, log });
    const packet = await mind.bootstrap({ sessionId: 'x' });
    expect(packet.session_id).toBe('x');
    expect(packet.context.last_session).toBeNull();
    expect(warnings.join('\n')).toContain('could not record the session start');
    const reasons = packet.degraded_mode.reasons.join('\n');
    expect(reasons).toContain('sessions: sessions.jsonl could not be read (EISDIR');
    expect(reasons).toContain('sessions: could not record the session start');
    // Once the home is writable again, the next session is recorded.
    rmdirSync(join(dir, 'sessions.jsonl'));
    const next = await mind.bootstrap({ sessionId: 'y' });
    expect(next.degraded_mode.reasons).toEqual([]);
    expect(starts(dir).map((s) => s.session_id)).toEqual(['y']);
    mind.close();
  });

  it('moves a log with unreadable lines aside, says so, and keeps its readable starts', async () => {
    const dir = home();
    const { warnings, log } = warningsLog();
    writeFileSync(
      join(dir, 'sessions.jsonl'),
      `${JSON.stringify({ session_id: 'a', at: '2026-11-20T10:00:00.000Z' })}\n{"session_id": "torn\n`,
    );
    const now = new Date('2026-11-20T12:00:00Z');
    const mind = createMind({ home: dir, clock: () => now, log });
    // A preview moves nothing; it reports the file and what will happen.
    const preview = await mind.bootstrap({ sessionId: 'b', preview: true });
    expect(preview.context.last_session?.session_id).toBe('a');
    expect(preview.degraded_mode.reasons).toEqual([
      expect.stringMatching(
        /^sessions: sessions\.jsonl: 1 unreadable line, the first not valid JSON .*; it is moved aside at the next recorded session start$/,
      ),
    ]);
    const packet = await mind.bootstrap({ sessionId: 'b' });
    expect(packet.context.last_session?.session_id).toBe('a');
    const aside = `sessions.jsonl.corrupt-${now.getTime()}`;
    expect(readFileSync(join(dir, aside), 'utf8')).toContain('"torn');
    expect(packet.degraded_mode.reasons).toEqual([
      expect.stringContaining(
        `kept it as ${aside} and carried its 1 readable session start(s) into sessions.jsonl`,
      ),
    ]);
    expect(warnings.join('\n')).toContain(aside);
    expect(starts(dir).map((s) => s.session_id)).toEqual(['a', 'b']);
    // Reported once: the next packet is clean.
    expect((await mind.bootstrap({ sessionId: 'b' })).degraded_mode.reasons).toEqual([]);
    mind.close();
  });

  it('folds a sessions.json of {current, previous} into the log once', async () => {
    const dir = home();
    writeFileSync(
      join(dir, 'sessions.json'),
      JSON.stringify({
        current: { session_id: 'two', at: '2026-11-19T10:00:00.000Z' },
        previous: { session_id: 'one', at: '2026-11-18T10:00:00.000Z' },
      }),
    );
    const now = new Date('2026-11-20T10:00:00Z');
    const mind = createMind({ home: dir, clock: () => now });
    expect((await mind.context({ sessionId: 'three', preview: true })).last_session?.session_id).toBe('two');
    const packet = await mind.bootstrap({ sessionId: 'three' });
    expect(packet.context.last_session?.human).toBe('1 day ago');
    expect(packet.degraded_mode.reasons).toEqual([]);
    expect(existsSync(join(dir, 'sessions.json'))).toBe(false);
    expect(starts(dir).map((s) => s.session_id)).toEqual(['one', 'two', 'three']);
    mind.close();
  });

  it('sets an unreadable sessions.json aside instead of overwriting it', async () => {
    const dir = home();
    writeFileSync(join(dir, 'sessions.json'), '{"current": {"session_id": ');
    const now = new Date('2026-11-20T10:00:00Z');
    const mind = createMind({ home: dir, clock: () => now });
    const packet = await mind.bootstrap({ sessionId: 'a' });
    expect(packet.context.last_session).toBeNull();
    const aside = `sessions.json.corrupt-${now.getTime()}`;
    expect(readFileSync(join(dir, aside), 'utf8')).toBe('{"current": {"session_id": ');
    expect(packet.degraded_mode.reasons).toEqual([
      expect.stringMatching(new RegExp(`^sessions: sessions\\.json: not valid JSON .*; kept it as ${aside}`)),
    ]);
    expect(existsSync(join(dir, 'sessions.json'))).toBe(false);
    expect(starts(dir).map((s) => s.session_id)).toEqual(['a']);
    // A second unreadable file in the same millisecond is kept beside the first, not over it.
    writeFileSync(join(dir, 'sessions.json'), 'also not JSON');
    await mind.bootstrap({ sessionId: 'b' });
    expect(readFileSync(join(dir, aside), 'utf8')).toBe('{"current": {"session_id": ');
    expect(readFileSync(join(dir, `${aside}-2`), 'utf8')).toBe('also not JSON');
    mind.close();
  });

  it('rotates the log past its size limit and still answers from the rotated part', async () => {
    const dir = home();
    const line = (i: number) =>
      JSON.stringify({ session_id: `old-${i}`, at: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() });
    const lines: string[] = [];
    for (let i = 0, size = 0; size <= ROTATE_BYTES; i++) {
      lines.push(line(i));
      size += line(i).length + 1;
    }
    writeFileSync(join(dir, 'sessions.jsonl'), `${lines.join('\n')}\n`);
    let now = new Date('2026-11-20T10:00:00Z');
    const mind = createMind({ home: dir, clock: () => now });
    const first = await mind.bootstrap({ sessionId: 'new' });
    expect(first.context.last_session?.session_id).toBe(`old-${lines.length - 1}`);
    expect(
      readdirSync(dir)
        .filter((f) => f.startsWith('sessions.'))
        .sort(),
    ).toEqual(['sessions.1.jsonl', 'sessions.jsonl']);
    expect(starts(dir).map((s) => s.session_id)).toEqual(['new']);
    // Another process asking for "new" finds the session before it in the rotated file.
    const fresh = createMind({ home: dir, clock: () => now });
    const repeat = await fresh.context({ sessionId: 'new', preview: true });
    expect(repeat.last_session?.session_id).toBe(`old-${lines.length - 1}`);
    now = new Date('2026-11-20T11:00:00Z');
    const second = await mind.bootstrap({ sessionId: 'newer' });
    expect(second.context.last_session?.session_id).toBe('new');
    fresh.close();
    mind.close();
  });
});
