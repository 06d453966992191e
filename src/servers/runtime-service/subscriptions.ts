import type { Logger } from '../../core/index.js';
import {
  DEFAULT_MAX_PENDING,
  type InvokeResult,
  type Runtime,
  type SubscribeRequest,
  type Subscription,
  type SubscriptionCounts,
  type SubscriptionEvent,
  type SubscriptionRecord,
} from '../../runtime/index.js';
import { ApiError } from './errors.js';
import { type CursorStream, endedStream } from './sse.js';

/**
 * The subscribed sessions a service holds open: opened through the runtime (refusals come back
 * as results), fed events, read by cursor, torn down on request, when idle, or all at once at
 * shutdown. A closed one stays readable (its stream replays from the ledger).
 */
export interface SubscriptionsOptions {
  readonly runtime: Runtime;
  readonly log: Logger;
  /** Tear a subscription down after this long without an event, unless it asks for its own. */
  readonly idleMs: number;
  /** Closed subscriptions kept in memory for their readers (older ones replay from the ledger). */
  readonly keepClosed?: number;
}

/** A subscription as `GET /v1/subscriptions` lists it. */
export interface SubscriptionSummary {
  readonly id: string;
  readonly session: string;
  readonly persona: string;
  readonly role: string;
  readonly policy: string;
  /** The session's surface (its first channel's when the request named none). */
  readonly surface: string;
  /** The buffer's size: at most this many events wait for an interpretation. */
  readonly max_pending: number;
  /** Its channels' names: the event names of its stream. */
  readonly channels: readonly string[];
  readonly state: 'open' | 'closed';
  readonly teardown?: string;
  readonly participants: readonly string[];
  readonly counts: SubscriptionCounts;
  readonly last_seq: number;
  readonly created: string;
  readonly updated: string;
  readonly links: { readonly self: string; readonly events: string; readonly stream: string };
}

export class Subscriptions {
  private readonly live = new Map<string, Subscription>();
  private readonly keepClosed: number;

  constructor(private readonly options: SubscriptionsOptions) {
    this.keepClosed = options.keepClosed ?? 100;
  }

  async open(request: SubscribeRequest): Promise<Subscription | InvokeResult> {
    const opened = await this.options.runtime.subscribe(request, { idleMs: this.options.idleMs });
    if ('status' in opened) return opened;
    this.live.set(opened.id, opened);
    void opened.closed.then(() => this.evictClosed());
    return opened;
  }

  get openCount(): number {
    return [...this.live.values()].filter((s) => s.open).length;
  }

  /** Open ones from memory (live counts); with `all`, closed ones from the ledger too. */
  async list(all: boolean): Promise<SubscriptionSummary[]> {
    const open = [...this.live.values()].filter((s) => s.open).map((s) => summary(s.record()));
    if (!all) return open;
    const ids = new Set(open.map((s) => s.id));
    const stored = await this.options.runtime.ledger.listSubscriptions();
    return [
      ...open,
      ...stored.filter((r) => !ids.has(r.id)).map((r) => summary(this.live.get(r.id)?.record() ?? r)),
    ];
  }

  async get(id: string): Promise<SubscriptionSummary> {
    const sub = this.live.get(id);
    if (sub) return summary(sub.record());
    const record = await this.options.runtime.ledger.getSubscription(id);
    if (!record) throw notFound(id);
    return summary(record);
  }

  async post(id: string, events: readonly SubscriptionEvent[]) {
    const sub = this.live.get(id);
    if (!sub) {
      if (await this.options.runtime.ledger.getSubscription(id)) throw closed(id);
      throw notFound(id);
    }
    if (!sub.open) throw closed(id);
    const result = await sub.post(events);
    if (result.rejected > 0) {
      throw new ApiError(
        429,
        'QUEUE_FULL',
        `subscription ${id} (policy queue) holds ${sub.counts.queued} pending events, its maximum: ${result.accepted} accepted, ${result.rejected} refused`,
        'send the refused events again after a moment (Retry-After), or open the subscription with a larger max_pending or another policy',
        { accepted: result.accepted, rejected: result.rejected, counts: result.counts },
      );
    }
    return result;
  }

  async stream(id: string): Promise<CursorStream> {
    const sub = this.live.get(id);
    if (sub) return sub.stream;
    const record = await this.options.runtime.ledger.getSubscription(id);
    if (!record) throw notFound(id);
    const ledger = this.options.runtime.ledger;
    return endedStream((after, limit) => ledger.readEmissions(id, after, limit), Number.MAX_SAFE_INTEGER);
  }

  async close(id: string): Promise<SubscriptionSummary> {
    const sub = this.live.get(id);
    if (!sub) return this.get(id); // already closed: its record says how
    await sub.teardown('request');
    return summary(sub.record());
  }

  /** Tears every open subscription down (server shutdown), each journaled. */
  async closeAll(): Promise<void> {
    await Promise.allSettled(
      [...this.live.values()].filter((s) => s.open).map((s) => s.teardown('shutdown')),
    );
  }

  private evictClosed(): void {
    const closedOnes = [...this.live.values()].filter((s) => !s.open);
    for (const sub of closedOnes.slice(0, Math.max(0, closedOnes.length - this.keepClosed)))
      this.live.delete(sub.id);
  }
}

function summary(record: SubscriptionRecord): SubscriptionSummary {
  const self = `/v1/subscriptions/${record.id}`;
  // The request as it was opened (validated then): channels and buffer size with their defaults.
  const request = record.request as Partial<SubscribeRequest>;
  const channels = request.channels?.length ? request.channels : [{ name: 'emission' }];
  return {
    id: record.id,
    session: record.session,
    persona: record.persona,
    role: record.role,
    policy: record.policy,
    surface: request.surface ?? request.channels?.find((c) => c.surface)?.surface ?? '',
    max_pending: request.max_pending ?? DEFAULT_MAX_PENDING,
    channels: channels.map((c) => c.name),
    state: record.state,
    ...(record.teardown ? { teardown: record.teardown } : {}),
    participants: record.participants,
    counts: record.counts,
    last_seq: record.last_seq,
    created: record.created,
    updated: record.updated,
    links: { self, events: `${self}/events`, stream: `${self}/stream` },
  };
}

function notFound(id: string): ApiError {
  return new ApiError(
    404,
    'NOT_FOUND',
    `no subscription ${id}`,
    'open one with POST /v1/subscriptions, or list them with GET /v1/subscriptions?state=all',
  );
}

function closed(id: string): ApiError {
  return new ApiError(
    409,
    'SUBSCRIPTION_CLOSED',
    `subscription ${id} is closed`,
    'open a new subscription; GET its stream to read what it emitted',
  );
}
