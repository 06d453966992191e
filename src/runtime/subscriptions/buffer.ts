import type { SubscriptionCounts } from '../ledger/index.js';
import type { BackpressurePolicy, SubscriptionEvent } from './types.js';

/**
 * The events waiting for an interpretation, under a backpressure policy, in bounded memory:
 * at most `maxPending` events are held whatever the inflow. Every event posted is accounted
 * for exactly once: refused (`rejected`, `queue` only), or received and then dropped,
 * coalesced into another's interpretation, or interpreted — so at rest
 * `received = interpreted + coalesced + dropped`, and `sent = received + rejected`.
 */

/** An event as buffered: numbered in the order received. */
export interface BufferedEvent extends SubscriptionEvent {
  readonly seq: number;
  readonly at: string;
}

/** What the next interpretation reads. */
export interface Batch {
  readonly events: readonly BufferedEvent[];
  /** Events dropped since the previous batch was taken (the model is told). */
  readonly droppedBefore: number;
}

export class EventBuffer {
  private readonly pending: BufferedEvent[] = [];
  private nextSeq = 1;
  private droppedSinceTake = 0;
  /** Events in the batch being interpreted (taken, not yet settled). */
  private inFlight = 0;
  readonly counts: SubscriptionCounts = {
    received: 0,
    interpreted: 0,
    dropped: 0,
    coalesced: 0,
    rejected: 0,
    queued: 0,
    emitted: 0,
  };

  constructor(
    readonly policy: BackpressurePolicy,
    readonly maxPending: number,
  ) {}

  /** Adds events in order; under `queue` those past a full buffer are refused (counted). */
  push(events: readonly SubscriptionEvent[], at = new Date()): { accepted: number; rejected: number } {
    let accepted = 0;
    let rejected = 0;
    for (const event of events) {
      if (this.pending.length >= this.maxPending) {
        if (this.policy === 'queue') {
          rejected++;
          continue;
        }
        this.pending.shift();
        this.counts.dropped++;
        this.droppedSinceTake++;
      }
      this.pending.push({ ...event, seq: this.nextSeq++, at: at.toISOString() });
      accepted++;
    }
    this.counts.received += accepted;
    this.counts.rejected += rejected;
    this.counts.queued = this.pending.length;
    return { accepted, rejected };
  }

  /** The next batch (one event, or every pending one under `coalesce`), or undefined. */
  take(): Batch | undefined {
    if (this.pending.length === 0) return undefined;
    const events = this.policy === 'coalesce' ? this.pending.splice(0) : this.pending.splice(0, 1);
    const batch = { events, droppedBefore: this.droppedSinceTake };
    this.droppedSinceTake = 0;
    this.inFlight = events.length;
    this.counts.queued = this.pending.length;
    return batch;
  }

  /** The batch taken last was interpreted: one interpretation, its other events coalesced. */
  settle(): void {
    if (this.inFlight === 0) return;
    this.counts.interpreted++;
    this.counts.coalesced += this.inFlight - 1;
    this.inFlight = 0;
  }

  /** Drops whatever is pending (at teardown); returns how many. */
  discard(): number {
    const n = this.pending.length;
    this.pending.length = 0;
    this.counts.dropped += n;
    this.counts.queued = 0;
    return n;
  }

  get size(): number {
    return this.pending.length;
  }

  get busy(): boolean {
    return this.inFlight > 0;
  }
}
