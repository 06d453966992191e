import pg from 'pg';

/**
 * One LISTEN connection per replica for every notice the service waits on (an invocation's
 * progress, a stream's new records, a relayed request or its reply). A dropped connection
 * (Postgres restarted) is opened again after a second; waiters meanwhile fall back on their
 * timeouts, so a missed notice costs at most that.
 */
export class PgNotices {
  private listener: pg.Client | undefined;
  private readonly waiting = new Map<string, Set<() => void>>();
  private readonly handlers = new Map<string, (payload: string) => void>();
  private closed = false;

  constructor(private readonly url: string) {}

  /** Listens on `channel`; `handle` gets each notice's payload (default: wakes waiters on it). */
  async listen(channel: string, handle: (payload: string) => void = (p) => this.wake(p)): Promise<void> {
    this.handlers.set(channel, handle);
    if (!this.listener) await this.connect();
    else await this.listener.query(`LISTEN ${channel}`).catch(() => {});
  }

  /** Resolves when `key` is next woken, or after `ms`, or when `signal` aborts. */
  changed(key: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiting.get(key) ?? new Set();
      this.waiting.set(key, set);
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0) this.waiting.delete(key);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  wake(key: string): void {
    for (const done of [...(this.waiting.get(key) ?? [])]) done();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.listener?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', ({ channel, payload = '' }) => this.handlers.get(channel)?.(payload));
    client.on('error', () => {});
    const again = () => {
      if (this.closed || this.listener !== client) return;
      this.listener = undefined;
      setTimeout(() => void this.connect(), 1000).unref();
    };
    client.on('end', again);
    this.listener = client;
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
    } catch {
      again();
      client.end().catch(() => {});
    }
  }
}
