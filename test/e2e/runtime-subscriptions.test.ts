import { RuntimeClient, RuntimeClientError, type ServerEvent } from 'firstlight/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { JournalEntry, SubscriptionCounts } from '../../src/runtime/index.js';
import { waitFor } from '../helpers/index.js';
import { type RuntimeFixture, runtimeFixture } from './runtime-fixture.js';
import { memoryOf, type RunningService, runCliAsync, startService } from './runtime-service-fixture.js';

/**
 * Subscribed sessions over HTTP: an observer fed 10,000 events at full speed while a scripted
 * substrate takes 50 ms per interpretation, under each backpressure policy — every event
 * accounted for, memory bounded, the stream resumed after a disconnect with nothing lost or
 * repeated, teardown journaled and ending the stream.
 */

const EVENTS = 10_000;
const BATCH = 100;
const MAX_PENDING = 100;

describe('subscribed sessions', { timeout: 300_000 }, () => {
  let fx: RuntimeFixture;
  let service: RunningService;
  let client: RuntimeClient;
  let substrate: string;
  let baselineMb: number;

  beforeAll(async () => {
    fx = runtimeFixture();
    substrate = `scripted:${fx.file('observer-50ms.yaml', stringify({ steps: [{ delay_ms: 50, text: '🦦 The stream moved ✅' }] }))}`;
    service = await startService(['--home', fx.home, '--project', fx.project]);
    client = new RuntimeClient({ url: service.url, home: fx.home });
    baselineMb = memoryOf(service.pid).rssMb;
  });
  afterAll(async () => {
    await service?.stop();
    fx?.dispose();
  });

  const observer = (extra: Record<string, unknown> = {}) => ({
    persona: 'team',
    surface: 'real-time-stream',
    task: 'Narrate what the stream shows, in a line.',
    channels: [{ name: 'captions' }, { name: 'plain', voice: 'strict' as const }],
    max_pending: MAX_PENDING,
    substrate,
    ...extra,
  });

  /** Reads a stream into `into` until `stop` aborts it or the stream ends; returns the last id. */
  async function read(
    id: string,
    into: ServerEvent[],
    options: { after?: number; signal?: AbortSignal } = {},
  ) {
    try {
      for await (const event of client.emissions(id, { ...options, reconnect: false })) into.push(event);
    } catch (error) {
      if (!options.signal?.aborted) throw error;
    }
    return into.at(-1)?.id ?? options.after ?? 0;
  }

  for (const policy of ['drop_oldest', 'coalesce', 'queue'] as const) {
    it(`${policy}: 10,000 events at full speed, every one accounted for, memory bounded, the stream resumed without loss or repeat, teardown journaled`, async () => {
      const sub = await client.subscribe(observer({ policy }));
      expect(sub.role).toBe('observer');

      // A reader that drops its connection after a few emissions.
      const first: ServerEvent[] = [];
      const hangUp = new AbortController();
      const firstReader = read(sub.id, first, { signal: hangUp.signal });

      let sent = 0;
      let refused = 0;
      for (let i = 0; i < EVENTS; i += BATCH) {
        const batch = Array.from({ length: BATCH }, (_, j) => ({
          participant: j % 2 === 0 ? 'ann' : 'bob',
          type: 'tick',
          text: `event ${i + j}`,
        }));
        sent += batch.length;
        try {
          await client.send(sub.id, batch);
        } catch (error) {
          if (!(error instanceof RuntimeClientError) || error.status !== 429) throw error;
          expect(policy).toBe('queue');
          refused += error.body.rejected as number;
        }
        if (i === BATCH * 20) {
          // At least one interpretation's emissions (one per channel) before the hang-up: under
          // coalesce the 21 batches posted so far may all be read by two interpretations, and
          // no more come until the sending goes on.
          await waitFor('an interpretation emitted before the hang-up', () => first.length >= 2);
          hangUp.abort();
        }
      }
      const lastSeen = await firstReader;
      expect(first.length).toBeGreaterThanOrEqual(2);

      // The reader comes back with Last-Event-ID while interpretations go on.
      const second: ServerEvent[] = [];
      const secondReader = read(sub.id, second, { after: lastSeen });

      const settled = await waitFor(
        'every accepted event interpreted, dropped or coalesced',
        async () => {
          const now = await client.subscription(sub.id);
          const c = now.counts;
          return c.queued === 0 && c.received === c.interpreted + c.dropped + c.coalesced ? now : undefined;
        },
        { timeoutMs: 180_000, intervalMs: 100 },
      );
      const memory = memoryOf(service.pid);
      const closed = await client.teardown(sub.id);
      expect(closed.state).toBe('closed');
      await secondReader;

      const counts: SubscriptionCounts = closed.counts;
      // Every event posted is accounted for exactly once.
      expect(counts.received + counts.rejected).toBe(sent);
      expect(counts.interpreted + counts.dropped + counts.coalesced).toBe(counts.received);
      expect(counts.rejected).toBe(refused);
      expect(counts).toEqual(settled.counts);
      if (policy === 'drop_oldest') {
        expect(counts.dropped).toBeGreaterThan(0);
        expect([counts.coalesced, counts.rejected]).toEqual([0, 0]);
      }
      if (policy === 'coalesce') {
        expect(counts.coalesced).toBeGreaterThan(0);
        expect(counts.rejected).toBe(0);
      }
      if (policy === 'queue') {
        expect(counts.rejected).toBeGreaterThan(0);
        expect([counts.dropped, counts.coalesced]).toEqual([0, 0]);
      }

      // The stream: one emission per channel per interpretation, then `end`; across the
      // disconnect every id once, in order, none missing.
      const all = [...first, ...second];
      const ids = all.map((e) => e.id);
      expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
      const end = all.at(-1)!;
      expect(end.event).toBe('end');
      expect(end.data).toEqual({ reason: 'request', counts });
      const emissions = all.slice(0, -1);
      expect(emissions).toHaveLength(counts.interpreted * 2);
      expect(counts.emitted).toBe(emissions.length);
      expect(new Set(emissions.map((e) => e.event))).toEqual(new Set(['captions', 'plain']));
      const plain = emissions.find((e) => e.event === 'plain')!.data as { value: string };
      const captions = emissions.find((e) => e.event === 'captions')!.data as { value: string };
      expect([captions.value, plain.value]).toEqual(['🦦 The stream moved ✅', 'The stream moved']);
      // What each interpretation covered adds up to what was interpreted and coalesced.
      const covered = emissions
        .filter((e) => e.event === 'captions')
        .reduce((n, e) => n + (e.data as { covered: number }).covered, 0);
      expect(covered).toBe(counts.interpreted + counts.coalesced);

      // The journal: the start, backpressure, the teardown with the counts, the end.
      const rows: JournalEntry[] = await client.journal({ session: sub.session });
      expect(rows.map((r) => r.kind)).toEqual(
        expect.arrayContaining(['session_start', 'participant', 'backpressure', 'teardown', 'session_end']),
      );
      expect(rows[0]!.fields).toMatchObject({ session_type: 'subscribed', policy, subscription: sub.id });
      const teardown = rows.find((r) => r.kind === 'teardown')!;
      expect(teardown.fields).toMatchObject({ reason: 'request', subscription: sub.id });
      for (const [key, value] of Object.entries(counts))
        expect(teardown.fields[key], key).toBe(String(value));

      // Bounded memory: whatever the inflow, the buffer holds at most MAX_PENDING events.
      console.log(
        `${policy}: sent ${sent}, ${JSON.stringify(counts)}, service RSS ${memory.rssMb.toFixed(0)} MB, peak ${memory.peakMb.toFixed(0)} MB (at start ${baselineMb.toFixed(0)} MB)`,
      );
      expect(memory.peakMb).toBeLessThan(baselineMb + 200);
    });
  }

  it('tears down after its idle timeout, journaled, ending the stream', async () => {
    const sub = await client.subscribe(observer({ idle_timeout_s: 1 }));
    await client.send(sub.id, { text: 'one event' });
    const events: ServerEvent[] = [];
    await read(sub.id, events);
    expect(events.at(-1)).toMatchObject({ event: 'end', data: { reason: 'idle' } });
    const rows = await client.journal({ session: sub.session, type: 'teardown' });
    expect(rows[0]?.fields.reason).toBe('idle');
    await expect(client.send(sub.id, { text: 'late' })).rejects.toMatchObject({ status: 409 });
  });

  it('shares one mode between participants, refuses one in another role, and keeps its deliverable-free role', async () => {
    const refused = await fetch(`${service.url}/v1/subscriptions`, {
      method: 'POST',
      headers: service.auth,
      body: JSON.stringify(observer({ participants: ['ann', { name: 'vic', role: 'validator' }] })),
    });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      'same_session_transition',
    );
    const builder = await fetch(`${service.url}/v1/subscriptions`, {
      method: 'POST',
      headers: service.auth,
      body: JSON.stringify(observer({ role: 'builder' })),
    });
    expect(builder.status).toBe(400);
    expect(((await builder.json()) as { error: { code: string } }).error.code).toBe('ROLE_NOT_SUBSCRIBABLE');
    const sub = await client.subscribe(
      observer({ participants: ['ann', { name: 'bob', role: 'observer' }] }),
    );
    await client.send(sub.id, [
      { participant: 'ann', text: 'hello' },
      { participant: 'cyd', text: 'joining' },
    ]);
    await waitFor(
      'both interpreted',
      async () => (await client.subscription(sub.id)).counts.interpreted >= 1,
    );
    const closed = await client.teardown(sub.id);
    expect(closed.participants).toEqual(['ann', 'bob', 'cyd']);
    const joined = await client.journal({ session: sub.session, type: 'participant' });
    expect(joined.map((r) => r.fields.participant)).toEqual(['cyd']);
    const listed = await client.subscriptions({ all: true });
    expect(listed.find((s) => s.id === sub.id)?.state).toBe('closed');
  });

  it('tears every open subscription down at shutdown, journaled, and the stream ends', async () => {
    const own = runtimeFixture();
    const other = await startService(['--home', own.home, '--project', own.project]);
    const otherClient = new RuntimeClient({ url: other.url, home: own.home });
    const sub = await otherClient.subscribe(observer());
    await otherClient.send(sub.id, { text: 'before shutdown' });
    const events: ServerEvent[] = [];
    const reader = (async () => {
      try {
        for await (const e of otherClient.emissions(sub.id, { reconnect: false })) events.push(e);
      } catch {
        // the server went away after the end record
      }
    })();
    await waitFor('the first emission', () => events.length > 0);
    expect(await other.stop('SIGTERM')).toBe(0);
    await reader;
    expect(events.at(-1)).toMatchObject({ event: 'end', data: { reason: 'shutdown' } });
    const ran = await runCliAsync([
      'journal',
      '--home',
      own.home,
      '--project',
      own.project,
      '--json',
      '--type',
      'teardown',
    ]);
    const rows = (JSON.parse(ran.stdout) as { entries: JournalEntry[] }).entries;
    expect(rows.map((r) => [r.fields.reason, r.fields.subscription])).toEqual([['shutdown', sub.id]]);
    own.dispose();
  });
});
