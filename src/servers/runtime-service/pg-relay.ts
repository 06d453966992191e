import type { Logger } from '../../core/index.js';
import type { PgLedger } from '../../runtime/index.js';
import { ApiError, errorReply } from './errors.js';
import type { PgNotices } from './pg-notices.js';

/**
 * Subscriptions across replicas, on Postgres. A subscribed session lives in the replica that
 * opened it (its interpreter, its buffer, its backpressure counts); a request for it that
 * reaches another replica is relayed: written to `firstlight.relay`, announced with NOTIFY,
 * handled by the replica that holds it, answered in the same row and announced back. The
 * holder's answer is the answer (the exact counts, a 429 under `queue`), whichever replica
 * the client called. Emissions are in the ledger, and the ledger announces each batch, so a
 * stream opened on any replica follows them.
 */

const REQUESTS = 'firstlight_relay';
const REPLIES = 'firstlight_relay_reply';
/** What the Postgres ledger announces on after each batch of stream records (its id). */
export const STREAMS = 'firstlight_streams';

export type RelayOp = { readonly kind: 'events'; readonly events: unknown[] } | { readonly kind: 'teardown' };

/** The holder's side: undefined when this replica does not hold `subscription`. */
export type RelayHandler = (subscription: string, op: RelayOp) => Promise<unknown> | undefined;

export class PgRelay {
  private handler: RelayHandler | undefined;

  constructor(
    private readonly ledger: PgLedger,
    private readonly notices: PgNotices,
    private readonly log: Logger,
  ) {}

  async start(handler: RelayHandler): Promise<void> {
    this.handler = handler;
    await this.notices.listen(STREAMS);
    await this.notices.listen(REPLIES, (id) => this.notices.wake(`reply:${id}`));
    await this.notices.listen(REQUESTS, (payload) => {
      const at = payload.indexOf(':');
      void this.serve(payload.slice(0, at), payload.slice(at + 1)).catch((error: Error) =>
        this.log.warn(`relay: ${error.message}`),
      );
    });
  }

  /** Relays `op` to the replica holding `subscription`; its reply, or its error rethrown. */
  async call(subscription: string, op: RelayOp, timeoutMs = 10_000): Promise<unknown> {
    const { rows } = await this.ledger.pool.query<{ id: string }>(
      `INSERT INTO firstlight.relay (subscription, op) VALUES ($1, $2) RETURNING id`,
      [subscription, JSON.stringify(op)],
    );
    const id = rows[0]!.id;
    const answered = this.changed(`reply:${id}`, timeoutMs);
    await this.ledger.pool.query('SELECT pg_notify($1, $2)', [REQUESTS, `${id}:${subscription}`]);
    const deadline = Date.now() + timeoutMs;
    let reply: string | null = null;
    for (let wait = answered; ; wait = this.changed(`reply:${id}`, Math.max(0, deadline - Date.now()))) {
      await wait;
      const got = await this.ledger.pool.query<{ reply: string | null }>(
        'SELECT reply FROM firstlight.relay WHERE id = $1',
        [id],
      );
      reply = got.rows[0]?.reply ?? null;
      if (reply !== null || Date.now() >= deadline) break;
    }
    await this.ledger.pool.query('DELETE FROM firstlight.relay WHERE id = $1', [id]);
    if (reply === null) {
      throw new ApiError(
        503,
        'SUBSCRIPTION_UNREACHABLE',
        `the replica holding subscription ${subscription} did not answer within ${timeoutMs / 1000} s`,
        'retry; if its replica stopped, the subscription was torn down with it (GET it to see)',
      );
    }
    const answer = JSON.parse(reply) as {
      ok?: unknown;
      error?: { status: number; body: Record<string, unknown> };
    };
    if (answer.error) {
      const { status, body } = answer.error;
      const { error, ...extra } = body as { error: { code: string; message: string; fix?: string } };
      throw new ApiError(status, error.code, error.message, error.fix, extra);
    }
    return answer.ok;
  }

  /** Stops listening (last at shutdown: the queue's waiters share these notices). */
  async close(): Promise<void> {
    await this.notices.close();
  }

  /** Resolves when `key` (a stream's id, or `reply:N`) is next announced, or after `ms`. */
  changed(key: string, ms: number, signal?: AbortSignal): Promise<void> {
    return this.notices.changed(key, ms, signal);
  }

  private async serve(id: string, subscription: string): Promise<void> {
    const { rows } = await this.ledger.pool.query<{ op: string }>(
      'SELECT op FROM firstlight.relay WHERE id = $1 AND reply IS NULL',
      [id],
    );
    if (!rows[0]) return;
    const pending = this.handler?.(subscription, JSON.parse(rows[0].op) as RelayOp);
    if (!pending) return; // another replica holds it
    let reply: unknown;
    try {
      reply = { ok: await pending };
    } catch (error) {
      reply = { error: errorReply(error) };
    }
    await this.ledger.pool.query('UPDATE firstlight.relay SET reply = $2 WHERE id = $1', [
      id,
      JSON.stringify(reply),
    ]);
    await this.ledger.pool.query('SELECT pg_notify($1, $2)', [REPLIES, id]);
  }
}
