import type { PgLedger } from './pg-ledger.js';
import { recordText, SCHEMA } from './pg-schema.js';
import type { InvocationRecord } from './types.js';

/**
 * Which replica runs an invocation, on the Postgres ledger: a claim is a lease on its row
 * (`owner`, `lease_until`), renewed while the session runs. A queued invocation is claimed as
 * attempt 1; a running one whose lease ran out (its replica died or lost the database) is
 * claimed again as the next attempt, `reason=replica_lost`. One UPDATE each, so two replicas
 * can never both hold the same invocation.
 */

const TABLE = `${SCHEMA}.invocations`;

/** Claims `id` for `owner`; the record as claimed, or undefined when it is not claimable. */
export async function claimInvocation(
  ledger: PgLedger,
  id: string,
  owner: string,
  leaseS: number,
): Promise<InvocationRecord | undefined> {
  const { rows } = await ledger.pool.query<{ text: string; attempt: number; taken: boolean }>(
    `UPDATE ${TABLE} SET owner = $2, lease_until = now() + make_interval(secs => $3),
       attempt = CASE WHEN state = 'running' THEN attempt + 1 ELSE attempt END, state = 'running'
     WHERE id = $1 AND (state = 'queued' OR (state = 'running' AND lease_until < now()))
     RETURNING text, attempt, attempt > 1 AS taken`,
    [id, owner, leaseS],
  );
  const row = rows[0];
  if (!row) return undefined;
  const before = JSON.parse(row.text) as InvocationRecord;
  const claimed: InvocationRecord = {
    ...before,
    state: 'running',
    attempt: row.attempt,
    ...(row.taken ? { reason: 'replica_lost' } : {}),
    updated: new Date().toISOString(),
  };
  await ledger.pool.query(`UPDATE ${TABLE} SET text = $2, updated = $3 WHERE id = $1 AND owner = $4`, [
    id,
    recordText(claimed),
    claimed.updated,
    owner,
  ]);
  return claimed;
}

/** Extends `owner`'s lease; false when another replica took the invocation over. */
export async function renewLease(ledger: PgLedger, id: string, owner: string, leaseS: number) {
  const { rowCount } = await ledger.pool.query(
    `UPDATE ${TABLE} SET lease_until = now() + make_interval(secs => $3)
     WHERE id = $1 AND owner = $2 AND state = 'running'`,
    [id, owner, leaseS],
  );
  return (rowCount ?? 0) > 0;
}

/** Writes the ended record, only while `owner` still holds it; false when it no longer did. */
export async function finishInvocation(ledger: PgLedger, record: InvocationRecord, owner: string) {
  const { rowCount } = await ledger.pool.query(
    `UPDATE ${TABLE} SET state = $2, attempt = $3, text = $4, updated = $5, lease_until = NULL
     WHERE id = $1 AND owner = $6 AND state = 'running'`,
    [record.id, record.state, record.attempt, recordText(record), record.updated, owner],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Invocations to queue again: running ones whose lease ran out (their replica is lost), and
 * queued ones untouched for a lease (the replica that accepted or fetched one died before it
 * was queued or claimed). Each queued one is stamped, so it is sent again at most once a lease;
 * a second delivery of one still waiting costs a claim that finds nothing to do.
 */
export async function expiredInvocations(ledger: PgLedger, leaseS: number): Promise<string[]> {
  const { rows } = await ledger.pool.query<{ id: string }>(
    `WITH stale AS (
       SELECT id FROM ${TABLE}
       WHERE (state = 'running' AND lease_until < now())
          OR (state = 'queued' AND updated < now() - make_interval(secs => $1))
       ORDER BY created LIMIT 1000 FOR UPDATE SKIP LOCKED)
     UPDATE ${TABLE} i SET updated = now() FROM stale WHERE i.id = stale.id RETURNING i.id`,
    [leaseS],
  );
  return rows.map((r) => r.id);
}
