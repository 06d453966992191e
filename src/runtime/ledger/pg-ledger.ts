import pg from 'pg';
import { SystemError } from '../../core/index.js';
import { type HandoffRecord, handoffText, sha256Hex } from '../handoffs.js';
import {
  formatEntry,
  type JournalEntry,
  type JournalQuery,
  type JournalWrite,
  journalFilter,
  parseRow,
} from '../journal.js';
import type { SessionState } from '../sessions.js';
import { migrate, recordText, SCHEMA } from './pg-schema.js';
import type {
  HandoffRow,
  HandoffRowMissing,
  InvocationRecord,
  Ledger,
  StreamRecord,
  SubscriptionRecord,
  SubscriptionState,
} from './types.js';

/**
 * The ledger on Postgres, for several replicas of the runtime service on one database. Rows
 * hold the text the embedded store writes to its files (see pg-schema.ts), so both stores read
 * back the same entries and `export-ledger` writes the embedded form byte for byte.
 *
 * Journal references keep the embedded form, `.firstlight/journal/YYYY-MM-DD.tsv#SESSION`: a
 * handoff exported to files still names its row, and one imported from files is found here by
 * the day and session its reference names.
 */
export interface PgLedger extends Ledger {
  readonly pool: pg.Pool;
  /** The migrations this start applied (empty when the database was up to date). */
  readonly applied: readonly number[];
  close(): Promise<void>;
}

export interface PgLedgerOptions {
  /** `postgres://user:password@host:port/database`. */
  readonly url: string;
  /** Connections this process keeps at most (default 10). */
  readonly maxConnections?: number;
  /** What journal references start with (default `.firstlight/`, a project's ledger). */
  readonly refPrefix?: string;
}

/** The URL without its password, for messages and `GET /v1/health`. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres (an unparsable URL)';
  }
}

/**
 * A STORE_UNAVAILABLE error when `error` says the database cannot be reached (no connection, a
 * dropped one, a server shutting down or starting), else undefined. Errors the server sent
 * about a statement carry a SQLSTATE and `severity`; only classes 08 and 57P mean "away".
 */
export function unavailable(error: unknown, url: string): SystemError | undefined {
  const e = error as { code?: string; severity?: string; message?: string };
  const away = e.severity === undefined || /^(08|57P)/.test(e.code ?? '');
  if (!away || error instanceof SystemError) return undefined;
  return new SystemError(`the ledger's database is unreachable (${redactUrl(url)}): ${e.message ?? error}`, {
    code: 'STORE_UNAVAILABLE',
    hint: 'the service recovers by itself when Postgres is back: retry the request in a few seconds',
    cause: error,
  });
}

const REF = /(\d{4}-\d{2}-\d{2})\.tsv#(.+)$/;
const T = (name: string) => `${SCHEMA}.${name}`;

export async function createPgLedger(options: PgLedgerOptions): Promise<PgLedger> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: 5000,
  });
  // An idle connection the server dropped (a restart) must not crash the process: the pool
  // discards it and the next query opens a new one.
  pool.on('error', () => {});
  let applied: number[];
  try {
    applied = await migrate(pool);
  } catch (error) {
    await pool.end().catch(() => {});
    throw error;
  }
  const prefix = options.refPrefix ?? '.firstlight/';
  const q = async <R extends pg.QueryResultRow>(sql: string, values?: unknown[]) => {
    try {
      return await pool.query<R>(sql, values);
    } catch (error) {
      throw unavailable(error, options.url) ?? error;
    }
  };

  async function readJournal(query: JournalQuery = {}, where = '', values: unknown[] = []) {
    const keep = journalFilter(query);
    const { rows } = await q<{ line: string; day: string }>(
      `SELECT line, to_char(day, 'YYYY-MM-DD') AS day FROM ${T('journal')} ${where} ORDER BY id`,
      values,
    );
    const out: JournalEntry[] = [];
    for (const { line, day } of rows) {
      const entry = parseRow(line, `${prefix}journal/${day}.tsv`, day);
      if (entry && keep(entry)) out.push(entry);
    }
    return out;
  }

  async function readLines(table: string, key: string, id: string, after: number, limit: number) {
    const { rows } = await q<{ line: string }>(
      `SELECT line FROM ${T(table)} WHERE ${key} = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [id, after, limit],
    );
    return rows.map((r) => JSON.parse(r.line) as StreamRecord);
  }

  async function appendLines(table: string, key: string, id: string, records: readonly StreamRecord[]) {
    if (records.length === 0) return;
    // Readers of this stream on any replica are told (LISTEN firstlight_streams) in the same
    // statement, so a notice never comes before its rows are visible.
    await q(
      `WITH added AS (
         INSERT INTO ${T(table)} (${key}, seq, line) SELECT $1, * FROM unnest($2::int[], $3::text[])
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT pg_notify('firstlight_streams', $1) FROM (SELECT 1) one WHERE EXISTS (SELECT 1 FROM added)`,
      [id, records.map((r) => r.seq), records.map((r) => JSON.stringify(r))],
    );
  }

  return {
    pool,
    applied,
    location: redactUrl(options.url),
    async close() {
      await pool.end();
    },

    async appendJournal(entries: readonly JournalWrite[], at = new Date()): Promise<void> {
      if (entries.length === 0) return;
      const lines = entries.map((entry) => formatEntry(entry, at));
      // One statement: the rows land together and in order (ids follow the array).
      await q(
        `INSERT INTO ${T('journal')} (day, at, session, kind, letter, line)
         SELECT $1::date, $2::timestamptz, r.session, r.kind, r.letter, r.line
         FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY
           AS r(session, kind, letter, line, n)
         ORDER BY r.n`,
        [
          at.toISOString().slice(0, 10),
          at.toISOString(),
          entries.map((e) => e.session),
          entries.map((e) => e.kind),
          lines.map((line) => line.slice(0, 1)),
          lines,
        ],
      );
    },
    journalRef(session: string, at: Date): string {
      return `${prefix}journal/${at.toISOString().slice(0, 10)}.tsv#${session}`;
    },
    async readJournal(query?: JournalQuery): Promise<JournalEntry[]> {
      return readJournal(query);
    },
    async handoffRow(ref: string, id: string): Promise<HandoffRow | HandoffRowMissing> {
      const match = REF.exec(ref);
      if (!match) return 'no_such_journal';
      const [, day, session] = match;
      const entries = await readJournal({}, 'WHERE day = $1 AND session = $2', [day, session]);
      if (entries.length === 0) {
        const { rowCount } = await q(`SELECT 1 FROM ${T('journal')} WHERE day = $1 LIMIT 1`, [day]);
        if (!rowCount) return 'no_such_journal';
      }
      const row = entries.find(
        (e) =>
          (e.kind === 'transition' || e.kind === 'import') &&
          e.fields.session === session &&
          e.fields.handoff === id,
      );
      return row ? { kind: row.kind as HandoffRow['kind'], fields: row.fields } : 'no_such_row';
    },
    async sessionStart(session: string): Promise<JournalEntry | undefined> {
      const entries = await readJournal({}, "WHERE session = $1 AND kind = 'session_start'", [session]);
      return entries[0];
    },

    async putHandoff(record: HandoffRecord) {
      const text = handoffText(record);
      const sha256 = sha256Hex(text);
      await q(`INSERT INTO ${T('handoffs')} (id, text, sha256, session) VALUES ($1, $2, $3, $4)`, [
        record.id,
        text,
        sha256,
        record.from_session ?? null,
      ]);
      return { sha256, location: `${redactUrl(options.url)}#handoffs/${record.id}` };
    },
    async getHandoff(id: string) {
      const { rows } = await q<{ text: string }>(`SELECT text FROM ${T('handoffs')} WHERE id = $1`, [id]);
      const text = rows[0]?.text;
      if (text === undefined) return undefined;
      let record: HandoffRecord;
      try {
        record = JSON.parse(text) as HandoffRecord;
      } catch {
        // Stored text that no longer parses was changed by hand: its hash check says so.
        record = { id, kind: 'artifact', content: {}, created: '' };
      }
      return { record, location: `handoffs/${id}`, sha256: sha256Hex(text) };
    },

    async getSession(id: string): Promise<SessionState | undefined> {
      const { rows } = await q<{ text: string }>(`SELECT text FROM ${T('sessions')} WHERE id = $1`, [id]);
      return rows[0] ? (JSON.parse(rows[0].text) as SessionState) : undefined;
    },
    async putSession(state: SessionState): Promise<void> {
      await q(
        `INSERT INTO ${T('sessions')} (id, text) VALUES ($1, $2)
         ON CONFLICT (id) DO UPDATE SET text = excluded.text, updated = now()`,
        [state.id, recordText(state)],
      );
    },

    async createInvocation(record: InvocationRecord) {
      const { rowCount } = await q(
        `INSERT INTO ${T('invocations')} (id, idempotency_key, state, attempt, text, created, updated)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
        [
          record.id,
          record.idempotency_key ?? null,
          record.state,
          record.attempt,
          recordText(record),
          record.created,
          record.updated,
        ],
      );
      if (rowCount) return { record, created: true };
      const { rows } = await q<{ text: string }>(
        `SELECT text FROM ${T('invocations')} WHERE idempotency_key = $1`,
        [record.idempotency_key ?? null],
      );
      if (!rows[0]) throw new Error(`invocation ${record.id} exists already`);
      return { record: JSON.parse(rows[0].text) as InvocationRecord, created: false };
    },
    async updateInvocation(record: InvocationRecord): Promise<void> {
      await q(
        `UPDATE ${T('invocations')} SET state = $2, attempt = $3, text = $4, updated = $5 WHERE id = $1`,
        [record.id, record.state, record.attempt, recordText(record), record.updated],
      );
    },
    async getInvocation(id: string): Promise<InvocationRecord | undefined> {
      const { rows } = await q<{ text: string }>(`SELECT text FROM ${T('invocations')} WHERE id = $1`, [id]);
      return rows[0] ? (JSON.parse(rows[0].text) as InvocationRecord) : undefined;
    },
    async appendInvocationEvents(id: string, events: readonly StreamRecord[]): Promise<void> {
      await appendLines('invocation_events', 'invocation', id, events);
    },
    async readInvocationEvents(id: string, after: number, limit: number): Promise<StreamRecord[]> {
      return readLines('invocation_events', 'invocation', id, after, limit);
    },

    async putSubscription(record: SubscriptionRecord): Promise<void> {
      await q(
        `INSERT INTO ${T('subscriptions')} (id, state, text, created) VALUES ($1, $2, $3, $4)
         ON CONFLICT (id) DO UPDATE SET state = excluded.state, text = excluded.text`,
        [record.id, record.state, recordText(record), record.created],
      );
    },
    async getSubscription(id: string): Promise<SubscriptionRecord | undefined> {
      const { rows } = await q<{ text: string }>(`SELECT text FROM ${T('subscriptions')} WHERE id = $1`, [
        id,
      ]);
      return rows[0] ? (JSON.parse(rows[0].text) as SubscriptionRecord) : undefined;
    },
    async listSubscriptions(filter: { state?: SubscriptionState } = {}): Promise<SubscriptionRecord[]> {
      const { rows } = await q<{ text: string }>(
        `SELECT text FROM ${T('subscriptions')} WHERE $1::text IS NULL OR state = $1 ORDER BY created, id`,
        [filter.state ?? null],
      );
      return rows.map((r) => JSON.parse(r.text) as SubscriptionRecord);
    },
    async appendEmissions(id: string, emissions: readonly StreamRecord[]): Promise<void> {
      await appendLines('emissions', 'subscription', id, emissions);
    },
    async readEmissions(id: string, after: number, limit: number): Promise<StreamRecord[]> {
      return readLines('emissions', 'subscription', id, after, limit);
    },
  };
}
