import type pg from 'pg';
import { SystemError } from '../../core/index.js';

/**
 * The Postgres ledger's tables, as numbered migrations. Every replica applies what is missing
 * when it starts, in one transaction under an advisory lock, so replicas starting together
 * apply each migration once; `firstlight.migrations` records what was applied and when. A
 * migration is never edited once released: a change is a new one.
 *
 * Journal rows, handoffs, records and stream lines are kept as the exact text the embedded
 * store writes to its files (`line`, `text`), beside the columns that index them, so
 * `export-ledger` writes files byte for byte what the embedded store would have written.
 */
export const SCHEMA = 'firstlight';

/** A record's stored text: what the embedded store writes to its file. */
export function recordText(record: unknown): string {
  return `${JSON.stringify(record, null, 2)}\n`;
}

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'ledger',
    sql: `
      CREATE TABLE firstlight.journal (
        id bigserial PRIMARY KEY,
        day date NOT NULL,
        at timestamptz NOT NULL,
        session text,
        kind text,
        letter text NOT NULL,
        line text NOT NULL
      );
      CREATE INDEX journal_session ON firstlight.journal (session, id);
      CREATE INDEX journal_at ON firstlight.journal (at);
      CREATE INDEX journal_day ON firstlight.journal (day, id);
      CREATE TABLE firstlight.handoffs (
        id text PRIMARY KEY,
        text text NOT NULL,
        sha256 text NOT NULL,
        session text,
        created timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE firstlight.sessions (
        id text PRIMARY KEY,
        text text NOT NULL,
        updated timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE firstlight.invocations (
        id text PRIMARY KEY,
        idempotency_key text UNIQUE,
        state text NOT NULL,
        attempt integer NOT NULL,
        text text NOT NULL,
        owner text,
        lease_until timestamptz,
        created timestamptz NOT NULL,
        updated timestamptz NOT NULL
      );
      CREATE INDEX invocations_state ON firstlight.invocations (state, lease_until);
      CREATE TABLE firstlight.invocation_events (
        invocation text NOT NULL,
        seq integer NOT NULL,
        line text NOT NULL,
        PRIMARY KEY (invocation, seq)
      );
      CREATE TABLE firstlight.subscriptions (
        id text PRIMARY KEY,
        state text NOT NULL,
        text text NOT NULL,
        created timestamptz NOT NULL
      );
      CREATE TABLE firstlight.emissions (
        subscription text NOT NULL,
        seq integer NOT NULL,
        line text NOT NULL,
        PRIMARY KEY (subscription, seq)
      );`,
  },
  {
    version: 2,
    name: 'relay',
    sql: `
      CREATE TABLE firstlight.relay (
        id bigserial PRIMARY KEY,
        subscription text NOT NULL,
        op text NOT NULL,
        reply text,
        created timestamptz NOT NULL DEFAULT now()
      );`,
  },
];

/** Applies the migrations the database lacks; returns the versions it applied. */
export async function migrate(pool: pg.Pool): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // One replica migrates at a time; the others wait here and then find nothing to do.
    await client.query("SELECT pg_advisory_xact_lock(hashtext('firstlight.migrations'))");
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${SCHEMA}.migrations (
         version integer PRIMARY KEY, name text NOT NULL, applied timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${SCHEMA}.migrations`);
    const have = new Set(rows.map((r) => r.version));
    const latest = MIGRATIONS.at(-1)!.version;
    const newest = Math.max(0, ...have);
    if (newest > latest) {
      // A newer firstlight migrated this database: this one would misread its tables.
      throw new SystemError(
        `the ledger's database is at schema version ${newest}; this firstlight knows up to ${latest}`,
        {
          code: 'STORE_TOO_NEW',
          hint: 'upgrade firstlight on this replica to the version the other replicas run',
        },
      );
    }
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (have.has(m.version)) continue;
      await client.query(m.sql);
      await client.query(`INSERT INTO ${SCHEMA}.migrations (version, name) VALUES ($1, $2)`, [
        m.version,
        m.name,
      ]);
      applied.push(m.version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
