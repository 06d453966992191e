import { describe, expect, it } from 'vitest';
import { EventBuffer, StreamLog, type StreamRecord } from '../../../src/runtime/index.js';
import { channelOutput, type ResolvedChannel } from '../../../src/runtime/subscriptions/index.js';

const events = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ text: `e${from + i}` }));

/** Takes and settles batches until the buffer is empty; returns each batch's texts. */
function drain(buffer: EventBuffer): string[][] {
  const out: string[][] = [];
  for (let batch = buffer.take(); batch; batch = buffer.take()) {
    out.push(batch.events.map((e) => e.text!));
    buffer.settle();
  }
  return out;
}

describe('EventBuffer', () => {
  it('drop_oldest: one event per interpretation; a full buffer drops its oldest', () => {
    const buffer = new EventBuffer('drop_oldest', 3);
    expect(buffer.push(events(5))).toEqual({ accepted: 5, rejected: 0 });
    const first = buffer.take()!;
    expect([first.events.map((e) => e.text), first.droppedBefore]).toEqual([['e2'], 2]);
    buffer.settle();
    expect(drain(buffer)).toEqual([['e3'], ['e4']]);
    expect(buffer.counts).toMatchObject({ received: 5, interpreted: 3, dropped: 2, coalesced: 0, queued: 0 });
  });

  it('coalesce: every pending event in one interpretation; bounded the same way', () => {
    const buffer = new EventBuffer('coalesce', 4);
    buffer.push(events(6));
    expect(drain(buffer)).toEqual([['e2', 'e3', 'e4', 'e5']]);
    expect(buffer.counts).toMatchObject({ received: 6, interpreted: 1, coalesced: 3, dropped: 2 });
  });

  it('queue: refuses what does not fit, drops nothing', () => {
    const buffer = new EventBuffer('queue', 2);
    expect(buffer.push(events(5))).toEqual({ accepted: 2, rejected: 3 });
    expect(drain(buffer)).toEqual([['e0'], ['e1']]);
    expect(buffer.counts).toMatchObject({ received: 2, rejected: 3, interpreted: 2, dropped: 0 });
  });

  it('accounts for every event, whatever the inflow: received = interpreted + coalesced + dropped + queued', () => {
    for (const policy of ['drop_oldest', 'coalesce', 'queue'] as const) {
      const buffer = new EventBuffer(policy, 7);
      let sent = 0;
      for (let round = 0; round < 50; round++) {
        sent += 13;
        buffer.push(events(13, round * 13));
        if (round % 3 === 0 && buffer.take()) buffer.settle();
        const c = buffer.counts;
        expect(c.received + c.rejected).toBe(sent);
        expect(c.interpreted + c.coalesced + c.dropped + c.queued).toBe(c.received);
        expect(buffer.size).toBeLessThanOrEqual(7);
      }
      const pending = buffer.size;
      expect(buffer.discard()).toBe(pending);
      expect(buffer.counts.queued).toBe(0);
    }
  });
});

describe('StreamLog', () => {
  it('serves recent records from memory and older ones from the ledger, every number once', async () => {
    const ledger: StreamRecord[] = [];
    let readBacks = 0;
    const log = new StreamLog({
      keep: 3,
      persist: async (records) => {
        ledger.push(...records);
      },
      readBack: async (after, limit) => {
        readBacks++;
        return ledger.filter((r) => r.seq > after).slice(0, limit);
      },
    });
    for (let i = 0; i < 10; i++) await log.append([{ event: 'captions', data: i }]);
    expect((await log.read(7)).map((r) => r.seq)).toEqual([8, 9, 10]);
    expect(readBacks).toBe(0);
    expect((await log.read(0, 4)).map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect(readBacks).toBe(1);
    expect(await log.read(10)).toEqual([]);
  });

  it('wakes a waiting reader on a new record and at the end', async () => {
    const log = new StreamLog({ persist: async () => {}, readBack: async () => [] });
    const waiting = log.wait(0);
    void log.append([{ event: 'e', data: 1 }]);
    await waiting;
    const atEnd = log.wait(1);
    log.end();
    await atEnd;
    expect([log.lastSeq, log.isEnded]).toEqual([1, true]);
  });
});

describe('channel post-processing', () => {
  const channel = (extra: Partial<ResolvedChannel>): ResolvedChannel => ({
    name: 'c',
    surface: 'audit',
    surfaceProfile: undefined,
    voice: 'persona',
    select: 'text',
    ...extra,
  });
  const answer = { prose: '🦦 The build is green ✅', data: { status: '🦦 green', id: 'run-🦦' } };

  it('gives each channel its own part of the answer, voiced for it', async () => {
    expect(await channelOutput(channel({}), answer)).toEqual({
      ok: true,
      value: '🦦 The build is green ✅',
      tag: 'human',
    });
    expect(await channelOutput(channel({ voice: 'neutral' }), answer)).toMatchObject({
      value: 'The build is green ✅',
    });
    expect(await channelOutput(channel({ select: 'data' }), answer)).toEqual({
      ok: true,
      value: { status: 'green', id: 'run-🦦' },
      tag: 'machine',
    });
    expect(await channelOutput(channel({ select: 'data.status', voice: 'strict' }), answer)).toMatchObject({
      value: 'green',
    });
  });

  it("checks its surface's density cap and structured output, saying what to ask for", async () => {
    const capped = await channelOutput(channel({ surfaceProfile: { max_tokens_per_emission: 3 } }), answer);
    expect(capped).toMatchObject({ ok: false, problem: 'density' });
    expect((capped as { correction: string }).correction).toContain('at most 3 tokens');
    const structured = await channelOutput(channel({ surfaceProfile: { structured_output: 'required' } }), {
      prose: 'no json',
      data: undefined,
    });
    expect(structured).toMatchObject({ ok: false, problem: 'structure' });
  });
});
