import type { StreamRecord } from '../ledger/index.js';

/**
 * A stream consumers read by cursor (an invocation's events, a subscription's emissions): every
 * record is numbered and written to the ledger in order; the newest `keep` stay in memory for
 * readers that keep up, and a reader that fell behind (or reconnects with an old
 * `Last-Event-ID`) reads the older ones back from the ledger. Memory is bounded by `keep`
 * whatever the length of the stream or the speed of its readers: a reader holds only a cursor.
 */
export interface StreamLogOptions {
  /** Writes records to the ledger (called in order, one call at a time). */
  readonly persist: (records: readonly StreamRecord[]) => Promise<void>;
  /** Reads records after `after` back from the ledger. */
  readonly readBack: (after: number, limit: number) => Promise<StreamRecord[]>;
  /** Records kept in memory (default 256). */
  readonly keep?: number;
  /** The last number already written (a stream continued from the ledger). */
  readonly lastSeq?: number;
}

export class StreamLog {
  private readonly ring: StreamRecord[] = [];
  private readonly keep: number;
  private last: number;
  private ended = false;
  private readonly waiters = new Set<() => void>();
  /** Ledger writes, chained so they land in order. */
  private written: Promise<void> = Promise.resolve();

  constructor(private readonly options: StreamLogOptions) {
    this.keep = Math.max(1, options.keep ?? 256);
    this.last = options.lastSeq ?? 0;
  }

  /** Numbers and appends records; resolves when the ledger has them. */
  append(items: readonly { event: string; data: unknown }[]): Promise<readonly StreamRecord[]> {
    const at = new Date().toISOString();
    const records = items.map((item) => ({ seq: ++this.last, event: item.event, data: item.data, at }));
    this.ring.push(...records);
    if (this.ring.length > this.keep) this.ring.splice(0, this.ring.length - this.keep);
    const write = this.written.then(() => this.options.persist(records));
    // A failed write must not stop the ones after it; the caller sees its own failure.
    this.written = write.catch(() => {});
    this.wake();
    return write.then(() => records);
  }

  /** Records after `after`, at most `limit`: from memory when it still holds them, else the ledger. */
  async read(after: number, limit = 500): Promise<StreamRecord[]> {
    if (after >= this.last) return [];
    const first = this.ring[0]?.seq;
    if (first !== undefined && first <= after + 1) {
      return this.ring.filter((r) => r.seq > after).slice(0, limit);
    }
    await this.written;
    return this.options.readBack(after, limit);
  }

  /** Resolves when a record after `after` exists, the stream ended, or `signal` aborts. */
  wait(after: number, signal?: AbortSignal): Promise<void> {
    if (this.last > after || this.ended || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  /** No record comes after this: waiting readers wake and finish. */
  end(): void {
    this.ended = true;
    this.wake();
  }

  /** Resolves when every record appended so far is in the ledger. */
  flushed(): Promise<void> {
    return this.written;
  }

  get lastSeq(): number {
    return this.last;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
