import { randomBytes } from 'node:crypto';
import PgBoss from 'pg-boss';
import type { Logger } from '../../core/index.js';
import {
  claimInvocation,
  expiredInvocations,
  finishInvocation,
  type InvocationRecord,
  type PgLedger,
  renewLease,
} from '../../runtime/index.js';
import type { PgNotices } from './pg-notices.js';

/**
 * The invocation queue several replicas share, on Postgres: pg-boss carries "run invocation
 * ID" jobs, every replica works them with `concurrency` workers, and the invocation's row is
 * the lease (pg-claims): a worker claims it, renews the claim every third of the lease while
 * the session runs, and writes its end only while it still holds it. Every replica sweeps for
 * running invocations whose lease ran out and queues them again; the next claim is attempt
 * N+1 (`reason=replica_lost`). LISTEN/NOTIFY tells every replica when an invocation wrote
 * events or ended, so a stream or a waiting request on any replica follows it.
 */

const QUEUE = 'firstlight-invocations';
const CHANNEL = 'firstlight_invocations';

export interface PgQueueOptions {
  readonly ledger: PgLedger;
  readonly url: string;
  readonly concurrency: number;
  readonly leaseS: number;
  readonly log: Logger;
  readonly notices: PgNotices;
}

/** Runs one claimed invocation to its end; returns the ended record. */
export type RunClaimed = (record: InvocationRecord, lease: Lease) => Promise<InvocationRecord>;

export interface Lease {
  /** Writes the ended record if this replica still holds the invocation. */
  finish(record: InvocationRecord): Promise<boolean>;
}

export class PgQueue {
  readonly replica = `r-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly boss: PgBoss;
  private readonly workers: string[] = [];
  private sweep: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: PgQueueOptions) {
    this.boss = new PgBoss({
      connectionString: options.url,
      max: 4,
    });
    this.boss.on('error', (error: Error) => options.log.warn(`queue: ${error.message}`));
  }

  async start(run: RunClaimed): Promise<void> {
    // pg-boss 10 marks a finished job done without awaiting it: with the database away, that
    // rejection reaches no handler and would end the process. Such a rejection (a connection
    // error, or one from pg-boss's own code) is logged; the job, left active, is delivered again
    // after its expiry to a claim that finds nothing left to do. Any other is fatal, as always.
    process.on('unhandledRejection', (reason) => {
      const e = reason as { code?: string; stack?: string };
      const away =
        /^(08|57P)/.test(e?.code ?? '') ||
        ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT'].includes(e?.code ?? '') ||
        /[\\/]pg-boss[\\/]/.test(e?.stack ?? '');
      if (!away) throw reason;
      this.options.log.warn(`queue: ${(reason as Error).message ?? reason} (the database is away)`);
    });
    await this.boss.start();
    await this.boss.createQueue(QUEUE).catch(() => {}); // already there (another replica made it)
    for (let i = 0; i < this.options.concurrency; i++) {
      let worker = '';
      worker = await this.boss.work<{ id: string }>(
        QUEUE,
        { batchSize: 1, pollingIntervalSeconds: 0.5 },
        async ([job]) => {
          if (!job) return;
          await this.runJob(job.data.id, run);
          // A worker that just finished fetches again at once, not after its polling interval:
          // under load the queue is never empty, and waiting would idle the slot.
          this.boss.notifyWorker(worker);
        },
      );
      this.workers.push(worker);
    }
    await this.options.notices.listen(CHANNEL);
    const every = Math.max(250, (this.options.leaseS * 1000) / 3);
    this.sweep = setInterval(() => void this.requeueLost(), every);
    this.sweep.unref();
  }

  /** Queues an invocation already recorded as `queued`. */
  async enqueue(id: string): Promise<void> {
    await this.boss.send(QUEUE, { id }, { retryLimit: 3, expireInSeconds: 3600 });
    for (const worker of this.workers) this.boss.notifyWorker(worker);
  }

  /** Tells every replica that invocation `id` wrote events or ended. */
  async notify(id: string): Promise<void> {
    await this.options.ledger.pool.query('SELECT pg_notify($1, $2)', [CHANNEL, id]).catch(() => {});
  }

  /** Resolves when `id` is next notified, or after `ms` (a missed notice costs at most that). */
  changed(id: string, ms: number, signal?: AbortSignal): Promise<void> {
    return this.options.notices.changed(id, ms, signal);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.sweep) clearInterval(this.sweep);
    await this.boss.stop({ graceful: true, wait: true, timeout: 30_000 }).catch(() => {});
  }

  private async runJob(id: string, run: RunClaimed): Promise<void> {
    const { ledger, leaseS, log } = this.options;
    const claimed = await claimInvocation(ledger, id, this.replica, leaseS);
    if (!claimed) return; // ended, or another replica holds it
    let held = true;
    const renew = setInterval(
      () =>
        void renewLease(ledger, id, this.replica, leaseS).then(
          (ok: boolean) => {
            if (!ok && held) log.warn(`invocation ${id}: taken over by another replica`);
            held = ok;
          },
          () => {}, // the database is away: the next renewal tries again
        ),
      (leaseS * 1000) / 3,
    );
    try {
      await run(claimed, {
        finish: async (record) => {
          // The database away for a moment must not lose a finished session's end: retry for a
          // lease's worth, after which another replica would take the invocation over anyway.
          for (let waited = 0; ; waited += 500) {
            try {
              const ok = await finishInvocation(ledger, record, this.replica);
              await this.notify(id);
              return ok;
            } catch (error) {
              if (waited >= leaseS * 1000) throw error;
              await new Promise((resolve) => setTimeout(resolve, 500));
            }
          }
        },
      });
    } finally {
      clearInterval(renew);
    }
  }

  private async requeueLost(): Promise<void> {
    if (this.closed) return;
    try {
      for (const id of await expiredInvocations(this.options.ledger, this.options.leaseS))
        await this.enqueue(id);
    } catch {
      // the database is away: the next sweep tries again
    }
  }
}
