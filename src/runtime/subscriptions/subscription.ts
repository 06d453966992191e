import type { Hub } from '../../hub/index.js';
import type { JournalWrite } from '../journal.js';
import type { StreamRecord, SubscriptionCounts, SubscriptionRecord } from '../ledger/index.js';
import type { Admission } from '../pipeline/check-policy.js';
import type { Invocation } from '../pipeline/invocation.js';
import type { LockedTools } from '../pipeline/lock-tools.js';
import type { ResolvedSubstrate } from '../pipeline/resolve-substrate.js';
import { runSession } from '../pipeline/run-session.js';
import type { SubstrateMessage } from '../substrates/types.js';
import { type Batch, type BufferedEvent, EventBuffer } from './buffer.js';
import { type Answer, channelOutput, type ResolvedChannel } from './channels.js';
import { StreamLog } from './stream-log.js';
import type { BackpressurePolicy, SubscribeRequest, SubscriptionEvent, TeardownReason } from './types.js';

/**
 * A subscribed session, open: events in, emissions out on its channels. Interpretations run one
 * at a time (each through stage 7, run-session, with the tool set locked at the start); the
 * buffer applies the backpressure policy; emissions go to the ledger in order and stay readable
 * by cursor after a client disconnects; teardown (on request, when idle, at shutdown) journals
 * its reason and the counts and ends the stream.
 */

/** How many characters of one event's content an interpretation's message shows. */
const EVENT_CHARS = 2000;
/** At most one backpressure row per this long while events are dropped or coalesced. */
const BACKPRESSURE_ROW_MS = 5000;

export interface SubscriptionParts {
  readonly id: string;
  readonly request: SubscribeRequest;
  readonly inv: Invocation;
  readonly admission: Admission;
  readonly tools: LockedTools;
  readonly resolved: ResolvedSubstrate;
  readonly systemPrompt: string;
  readonly channels: readonly ResolvedChannel[];
  readonly policy: BackpressurePolicy;
  readonly maxPending: number;
  readonly idleMs: number;
  readonly participants: readonly string[];
  /** Emissions kept in memory for readers that keep up (older ones are read from the ledger). */
  readonly keep?: number;
}

export class Subscription {
  readonly id: string;
  readonly session: string;
  readonly policy: BackpressurePolicy;
  readonly stream: StreamLog;
  private readonly buffer: EventBuffer;
  private readonly participants: Set<string>;
  private readonly created = new Date().toISOString();
  private closing: Promise<void> | undefined;
  private markClosed!: () => void;
  /** Resolves once the subscription has been torn down (for whatever reason). */
  readonly closed = new Promise<void>((resolve) => {
    this.markClosed = resolve;
  });
  private teardownReason: TeardownReason | undefined;
  private pumping: Promise<void> | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private lastRowAt = 0;
  private rowed = { dropped: 0, coalesced: 0, rejected: 0 };

  constructor(private readonly parts: SubscriptionParts) {
    this.id = parts.id;
    this.session = parts.inv.meta.session_id;
    this.policy = parts.policy;
    this.buffer = new EventBuffer(parts.policy, parts.maxPending);
    this.participants = new Set(parts.participants);
    const ledger = parts.inv.ledger;
    this.stream = new StreamLog({
      persist: (records) => ledger.appendEmissions(this.id, records),
      readBack: (after, limit) => ledger.readEmissions(this.id, after, limit),
      ...(parts.keep ? { keep: parts.keep } : {}),
    });
    this.armIdle();
  }

  get counts(): Readonly<SubscriptionCounts> {
    return { ...this.buffer.counts };
  }

  get open(): boolean {
    return this.closing === undefined;
  }

  /**
   * Takes events in (in order). Under `queue` those past a full buffer are refused and counted;
   * a participant not seen before joins the session (journaled). Never waits for an
   * interpretation.
   */
  async post(
    events: readonly SubscriptionEvent[],
  ): Promise<{ accepted: number; rejected: number; counts: SubscriptionCounts }> {
    const joined = events.flatMap((e) =>
      e.participant && !this.participants.has(e.participant) ? [e.participant] : [],
    );
    const result = this.buffer.push(events);
    this.armIdle();
    if (joined.length > 0) {
      const fresh = [...new Set(joined)];
      for (const name of fresh) this.participants.add(name);
      await this.journal(
        fresh.map((name) => this.row('participant', `${name} joined`, { participant: name })),
      );
    }
    if (result.rejected > 0) await this.backpressureRow(false);
    this.pump();
    return { ...result, counts: this.counts };
  }

  /** The record the ledger keeps, as it stands. */
  record(): SubscriptionRecord {
    const { inv } = this.parts;
    return {
      id: this.id,
      session: this.session,
      state: this.open ? 'open' : 'closed',
      persona: inv.profile.persona,
      persona_version: inv.profile.version,
      role: inv.role.name,
      policy: this.policy,
      request: { ...this.parts.request },
      participants: [...this.participants],
      counts: this.counts,
      last_seq: this.stream.lastSeq,
      created: this.created,
      updated: new Date().toISOString(),
      ...(this.teardownReason ? { teardown: this.teardownReason } : {}),
    };
  }

  /**
   * Ends the session: no event is taken after this; the interpretation under way finishes;
   * events still pending are dropped (counted); the teardown and end rows are journaled; the
   * stream ends with an `end` record. Idempotent: a second call waits for the first.
   */
  teardown(reason: TeardownReason): Promise<void> {
    this.closing ??= this.close(reason);
    return this.closing;
  }

  /** Why it was torn down, once it was. */
  get reason(): TeardownReason | undefined {
    return this.teardownReason;
  }

  private async close(reason: TeardownReason): Promise<void> {
    this.teardownReason = reason;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    await this.pumping;
    const pendingDropped = this.buffer.discard();
    await this.backpressureRow(true);
    const counts = this.counts;
    const { inv } = this.parts;
    await this.journal([
      this.row('teardown', `${reason}: ${inv.profile.persona} as ${inv.role.name}, subscription ${this.id}`, {
        reason,
        subscription: this.id,
        pending_dropped: pendingDropped || undefined,
        ...countFields(counts),
      }),
      this.row('session_end', `completed (teardown ${reason}): ${inv.profile.persona} as ${inv.role.name}`, {
        ...inv.baseFields,
        status: 'completed',
        session_type: 'subscribed',
        teardown: reason,
        denials: inv.meta.denials.length || undefined,
      }),
    ]);
    await this.stream.append([{ event: 'end', data: { reason, counts } }]);
    this.stream.end();
    await inv.ledger.putSubscription(this.record());
    await this.parts.tools.hub?.closeAll();
    this.markClosed();
  }

  /** Runs interpretations while events wait; one at a time, started by `post`. */
  private pump(): void {
    if (this.pumping || this.closing) return;
    this.pumping = (async () => {
      try {
        for (let batch = this.buffer.take(); batch; batch = this.closing ? undefined : this.buffer.take()) {
          await this.interpret(batch);
        }
      } finally {
        this.pumping = undefined;
      }
      // Events that arrived while the last interpretation was being written.
      if (this.buffer.size > 0 && !this.closing) this.pump();
    })();
  }

  private async interpret(batch: Batch): Promise<void> {
    const { inv, admission, tools, resolved, channels } = this.parts;
    const messages: SubstrateMessage[] = [{ role: 'user', content: this.message(batch) }];
    const primary = await runSession(inv, admission, tools, resolved, {
      systemPrompt: this.parts.systemPrompt,
      messages,
    });
    const answer: Answer = { prose: primary.prose, data: primary.data };
    const outputs = await Promise.all(
      channels.map(async (channel) => {
        if (primary.failure) return { failure: primary.failure };
        let output = await channelOutput(channel, answer);
        if (!output.ok) {
          // The channel's own retry: the answer and what its surface needs, then a named failure.
          const retried = await runSession(
            { ...inv, surfaceProfile: channel.surfaceProfile },
            admission,
            tools,
            resolved,
            {
              systemPrompt: this.parts.systemPrompt,
              messages: [
                ...messages,
                { role: 'assistant', content: answerText(answer) },
                { role: 'user', content: output.correction },
              ],
            },
          );
          if (retried.failure) return { failure: retried.failure };
          output = await channelOutput(channel, { prose: retried.prose, data: retried.data });
          if (!output.ok)
            return {
              failure: {
                code: output.problem === 'density' ? 'density_exceeded' : 'structured_output_invalid',
                detail: output.correction,
              },
            };
        }
        return { value: output.value, tag: output.tag };
      }),
    );
    // Denials are journaled per call; the session keeps only their count, not a growing list.
    inv.meta.denials.length = 0;
    this.buffer.settle();
    const counts = this.counts;
    const covered = batch.events;
    const base = {
      interpretation: counts.interpreted,
      events: [covered[0]!.seq, covered.at(-1)!.seq],
      covered: covered.length,
      dropped_before: batch.droppedBefore,
      participants: [...new Set(covered.flatMap((e) => (e.participant ? [e.participant] : [])))],
    };
    this.buffer.counts.emitted += channels.length;
    const emitted = { ...counts, emitted: counts.emitted + channels.length };
    await this.stream.append(
      channels.map((channel, i) => ({
        event: channel.name,
        data: { ...base, channel: channel.name, ...outputs[i], counts: emitted },
      })),
    );
    await this.backpressureRow(false);
    await inv.ledger.putSubscription(this.record());
  }

  /** The message one interpretation reads: the standing task, then the batch's events. */
  private message(batch: Batch): string {
    const { events, droppedBefore } = batch;
    const head =
      events.length === 1
        ? `Event ${events[0]!.seq} of the stream`
        : `Events ${events[0]!.seq}–${events.at(-1)!.seq} of the stream (${events.length}, coalesced into one interpretation)`;
    const lines = [
      this.parts.request.task.trim(),
      '',
      `## ${head}${droppedBefore > 0 ? `; ${droppedBefore} earlier event(s) were dropped unread` : ''}`,
    ];
    for (const event of events) lines.push(eventLine(event));
    return lines.join('\n');
  }

  /** A `backpressure` row when events were dropped, coalesced or refused since the last one (at most one per 5 s, and at teardown). */
  private async backpressureRow(final: boolean): Promise<void> {
    const c = this.buffer.counts;
    const delta = {
      dropped: c.dropped - this.rowed.dropped,
      coalesced: c.coalesced - this.rowed.coalesced,
      rejected: c.rejected - this.rowed.rejected,
    };
    if (delta.dropped + delta.coalesced + delta.rejected === 0) return;
    if (!final && Date.now() - this.lastRowAt < BACKPRESSURE_ROW_MS) return;
    this.lastRowAt = Date.now();
    this.rowed = { dropped: c.dropped, coalesced: c.coalesced, rejected: c.rejected };
    await this.journal([
      this.row(
        'backpressure',
        `${this.policy}: ${delta.dropped} dropped, ${delta.coalesced} coalesced, ${delta.rejected} refused`,
        {
          subscription: this.id,
          policy: this.policy,
          ...Object.fromEntries(Object.entries(delta).map(([k, v]) => [`${k}_since`, v || undefined])),
          ...countFields(this.counts),
        },
      ),
    ]);
  }

  private row(kind: JournalWrite['kind'], title: string, fields: JournalWrite['fields']): JournalWrite {
    return { kind, title, session: this.session, ...(fields ? { fields } : {}) };
  }

  private journal(rows: readonly JournalWrite[]): Promise<void> {
    return this.parts.inv.ledger.appendJournal(rows);
  }

  /** Tears down after `idleMs` without an event (never while an interpretation runs or events wait). */
  private armIdle(): void {
    if (this.closing) return;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.buffer.size > 0 || this.buffer.busy) return this.armIdle();
      void this.teardown('idle');
    }, this.parts.idleMs);
    this.idleTimer.unref();
  }

  /** The servers' connections, for the opener to close if the start fails. */
  get hub(): Hub | undefined {
    return this.parts.tools.hub;
  }

  /** Records after `after`, for a stream reader. */
  read(after: number, limit?: number): Promise<StreamRecord[]> {
    return this.stream.read(after, limit);
  }
}

function eventLine(event: BufferedEvent): string {
  const who = [event.participant, event.type].filter(Boolean).join(', ');
  const body = [event.text, event.data === undefined ? undefined : JSON.stringify(event.data)]
    .filter((p) => p !== undefined && p !== '')
    .join(' ');
  const clipped =
    body.length > EVENT_CHARS
      ? `${body.slice(0, EVENT_CHARS)}… (${body.length - EVENT_CHARS} more characters)`
      : body;
  return `- [${event.seq}${who ? ` ${who}` : ''}] ${clipped}`;
}

/** The answer as the model gave it: its prose and its fenced JSON. */
function answerText(answer: Answer): string {
  if (answer.data === undefined) return answer.prose;
  return `${answer.prose}\n\n\`\`\`json\n${JSON.stringify(answer.data, null, 2)}\n\`\`\``.trim();
}

function countFields(counts: SubscriptionCounts): Record<string, number> {
  return { ...counts };
}
