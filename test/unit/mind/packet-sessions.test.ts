import { mkdirSync, readFileSync, rmdirSync, watch } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withFileLock } from '../../../src/core/index.js';
import { type BootstrapPacket, createMind } from '../../../src/mind/index.js';
import { exampleHomeCopy } from '../../helpers/index.js';

const ledger = (home: string) =>
  JSON.parse(readFileSync(join(home, 'sessions.json'), 'utf8')) as {
    current: { session_id: string | null } | null;
    previous: { session_id: string | null } | null;
  };

describe('session ledger behind bootstrap_session', () => {
  const temps: (() => void)[] = [];
  afterEach(() => {
    for (const dispose of temps.splice(0)) dispose();
  });

  it('answers a new session before writing, then writes the start once flushed', async () => {
    const h = exampleHomeCopy();
    temps.push(h.dispose);
    let now = new Date('2026-11-20T10:00:00Z');
    const mind = createMind({ home: h.dir, clock: () => now, deferSessionWrites: true });
    expect((await mind.bootstrap({ sessionId: 'a' })).context.last_session).toBeNull();
    now = new Date('2026-11-20T11:00:00Z');
    // The start of "a" is still pending, yet "b" sees it as its previous session.
    const b = await mind.bootstrap({ sessionId: 'b' });
    expect(b.context.last_session?.session_id).toBe('a');
    expect(b.context.last_session?.human).toBe('1 hour ago');
    await mind.flush();
    expect(ledger(h.dir)).toMatchObject({ current: { session_id: 'b' }, previous: { session_id: 'a' } });
    mind.close();
  });

  it('counts a start whose write is still waiting for the lock', async () => {
    const h = exampleHomeCopy();
    temps.push(h.dispose);
    let now = new Date('2026-11-20T10:00:00Z');
    const mind = createMind({ home: h.dir, clock: () => now, deferSessionWrites: true });
    let b: BootstrapPacket | undefined;
    // Another process holds the ledger's lock: the deferred write of "a" starts and waits for it.
    await withFileLock(join(h.dir, 'sessions.json'), async () => {
      await mind.bootstrap({ sessionId: 'a' });
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setTimeout(resolve, 20));
      now = new Date('2026-11-20T11:00:00Z');
      // The start of "a" is neither on disk nor pending any more, yet it is the last session.
      b = await mind.bootstrap({ sessionId: 'b' });
    });
    expect(b?.context.last_session?.session_id).toBe('a');
    await mind.flush();
    expect(ledger(h.dir)).toMatchObject({ current: { session_id: 'b' }, previous: { session_id: 'a' } });
    mind.close();
  });

  it('coalesces a burst of new sessions and merges with another process’s writes', async () => {
    const h = exampleHomeCopy();
    temps.push(h.dispose);
    let minute = 0;
    const clock = () => new Date(Date.UTC(2026, 10, 20, 10, minute++));
    const one = createMind({ home: h.dir, clock, deferSessionWrites: true });
    const other = createMind({ home: h.dir, clock });
    // Every write renames a temp file onto sessions.json: count those.
    let writes = 0;
    const watcher = watch(h.dir, (event, name) => {
      if (event === 'rename' && name === 'sessions.json') writes++;
    });
    await Promise.all([1, 2, 3].map((i) => one.bootstrap({ sessionId: `s${i}` })));
    // Another server on the same home records its own session (written at once, under the lock).
    await other.bootstrap({ sessionId: 'elsewhere' });
    await one.flush();
    await new Promise((resolve) => setTimeout(resolve, 100)); // the watcher's last events
    watcher.close();
    // One write for the burst of three, one for the other server's start.
    expect(writes).toBe(2);
    expect(ledger(h.dir)).toMatchObject({
      current: { session_id: 'elsewhere' },
      previous: { session_id: 's3' },
    });
    // A repeat of the current session is the same session, not a new start.
    const again = await createMind({ home: h.dir, clock }).bootstrap({ sessionId: 'elsewhere' });
    expect(again.context.last_session?.session_id).toBe('s3');
    one.close();
    other.close();
  });

  it('ties an id-less call to the session the SessionStart hook just recorded', async () => {
    const h = exampleHomeCopy();
    temps.push(h.dispose);
    let now = new Date('2026-11-20T10:00:00Z');
    const clock = () => now;
    // Yesterday's session, then today's hook (it knows the host session id) records "today".
    await createMind({ home: h.dir, clock }).bootstrap({
      sessionId: 'yesterday',
      sessionKey: 'hook:yesterday',
    });
    now = new Date('2026-11-21T10:00:00Z');
    await createMind({ home: h.dir, clock }).bootstrap({ sessionId: 'today', sessionKey: 'hook:today' });
    // The host's MCP server connected at about the same time; the model calls without an id.
    now = new Date('2026-11-21T10:05:00Z');
    const server = createMind({ home: h.dir, clock, deferSessionWrites: true });
    const connectedAt = new Date('2026-11-21T09:59:50Z');
    const context = await server.context({ sessionKey: 'conn-1', preview: true, connectedAt });
    expect(context.last_session?.session_id).toBe('yesterday');
    const packet = await server.bootstrap({ sessionKey: 'conn-1', connectedAt });
    expect(packet.context.last_session?.session_id).toBe('yesterday');
    expect(packet.context.last_session?.human).toBe('1 day ago');
    await server.flush();
    expect(ledger(h.dir)).toMatchObject({
      current: { session_id: 'today' },
      previous: { session_id: 'yesterday' },
    });
    // A connection that began long after the newest start is a session of its own.
    now = new Date('2026-11-21T15:00:00Z');
    const later = await server.bootstrap({ sessionKey: 'conn-2', connectedAt: now });
    expect(later.context.last_session?.session_id).toBe('today');
    server.close();
  });

  it('keeps a failed write pending and never fails the call', async () => {
    const h = exampleHomeCopy();
    temps.push(h.dispose);
    const warnings: string[] = [];
    const log = { error() {}, warn: (m: string) => warnings.push(m), info() {}, debug() {} };
    // A directory where sessions.json should be: every write fails.
    mkdirSync(join(h.dir, 'sessions.json'));
    const mind = createMind({ home: h.dir, log });
    const packet = await mind.bootstrap({ sessionId: 'x' });
    expect(packet.session_id).toBe('x');
    expect(warnings.join('\n')).toContain('could not record the session start');
    // Once the home is writable again, the next flush records the start that failed.
    rmdirSync(join(h.dir, 'sessions.json'));
    await mind.flush();
    expect(ledger(h.dir)).toMatchObject({ current: { session_id: 'x' } });
    mind.close();
  });
});
