import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { UserError } from '../../core/index.js';
import { sha256Hex } from '../handoffs.js';
import { JOURNAL_HEADER, parseRow } from '../journal.js';
import type { PgLedger } from './pg-ledger.js';
import { SCHEMA } from './pg-schema.js';

/**
 * Moving a ledger between Postgres and the embedded files form. The rows hold the files' own
 * text, so `export` writes what the embedded store would have written, byte for byte, and
 * `import` stores each file's text as it is (its handoffs' hashes still verify).
 *
 *   journal/YYYY-MM-DD.tsv   header, then the day's rows in the order they were written
 *   handoffs/<id>.json       sessions/<id>.json   invocations/<id>.json   subscriptions/<id>.json
 *   invocations/<id>.events.jsonl   subscriptions/<id>.emissions.jsonl   invocations/keys/<sha256>
 */

export interface TransferCounts {
  journal: number;
  handoffs: number;
  sessions: number;
  invocations: number;
  events: number;
  subscriptions: number;
  emissions: number;
}

const T = (name: string) => `${SCHEMA}.${name}`;
const empty = (): TransferCounts => ({
  journal: 0,
  handoffs: 0,
  sessions: 0,
  invocations: 0,
  events: 0,
  subscriptions: 0,
  emissions: 0,
});

/** Writes the ledger's files form into `dir` (which must hold no ledger yet). */
export async function exportLedger(ledger: PgLedger, dir: string): Promise<TransferCounts> {
  if (existsSync(join(dir, 'journal')) || existsSync(join(dir, 'handoffs'))) {
    throw new UserError(`${dir} already holds a ledger (journal/ or handoffs/)`, {
      code: 'LEDGER_EXISTS',
      hint: 'export into an empty directory (or a project whose .firstlight/ has no ledger yet)',
    });
  }
  const q = <R extends Record<string, unknown>>(sql: string) => ledger.pool.query<R>(sql);
  const counts = empty();
  const days = new Map<string, string[]>();
  const journal = await q<{ day: string; line: string }>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS day, line FROM ${T('journal')} ORDER BY id`,
  );
  for (const { day, line } of journal.rows) {
    const lines = days.get(day) ?? [];
    lines.push(line);
    days.set(day, lines);
  }
  for (const [day, lines] of days)
    write(join(dir, 'journal', `${day}.tsv`), `${JOURNAL_HEADER}\n${lines.join('\n')}\n`);
  counts.journal = journal.rows.length;
  for (const [table, sub, key] of [
    ['handoffs', 'handoffs', 'handoffs'],
    ['sessions', 'sessions', 'sessions'],
    ['invocations', 'invocations', 'invocations'],
    ['subscriptions', 'subscriptions', 'subscriptions'],
  ] as const) {
    const { rows } = await q<{ id: string; text: string }>(`SELECT id, text FROM ${T(table)} ORDER BY id`);
    for (const { id, text } of rows) write(join(dir, sub, `${id}.json`), text);
    counts[key] = rows.length;
  }
  const keys = await q<{ id: string; idempotency_key: string }>(
    `SELECT id, idempotency_key FROM ${T('invocations')} WHERE idempotency_key IS NOT NULL`,
  );
  for (const { id, idempotency_key } of keys.rows)
    write(join(dir, 'invocations', 'keys', createHash('sha256').update(idempotency_key).digest('hex')), id);
  for (const [table, key, sub, suffix, count] of [
    ['invocation_events', 'invocation', 'invocations', 'events', 'events'],
    ['emissions', 'subscription', 'subscriptions', 'emissions', 'emissions'],
  ] as const) {
    const { rows } = await q<{ id: string; lines: string[] }>(
      `SELECT ${key} AS id, array_agg(line ORDER BY seq) AS lines FROM ${T(table)} GROUP BY ${key}`,
    );
    for (const { id, lines } of rows) {
      write(join(dir, sub, `${id}.${suffix}.jsonl`), `${lines.join('\n')}\n`);
      counts[count] += lines.length;
    }
  }
  return counts;
}

/** Stores the files form found in `dir` into an empty Postgres ledger. */
export async function importLedger(ledger: PgLedger, dir: string): Promise<TransferCounts> {
  if (!existsSync(dir)) {
    throw new UserError(`no ledger at ${dir}`, {
      code: 'NOT_FOUND',
      hint: "pass the directory that holds journal/ and handoffs/ (a project's .firstlight/)",
    });
  }
  const client = await ledger.pool.connect();
  const counts = empty();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query(
      `SELECT 1 FROM ${T('journal')} UNION ALL SELECT 1 FROM ${T('handoffs')} LIMIT 1`,
    );
    if (rows.length > 0) {
      throw new UserError(`the Postgres ledger (${ledger.location}) is not empty`, {
        code: 'LEDGER_EXISTS',
        hint: 'import into a new database (the runtime creates its tables on start)',
      });
    }
    for (const name of list(join(dir, 'journal'), '.tsv')) {
      const day = /^\d{4}-\d{2}-\d{2}/.exec(name)?.[0];
      if (!day) continue;
      for (const line of readFileSync(join(dir, 'journal', name), 'utf8').split('\n')) {
        const entry = parseRow(line, name, day);
        if (!entry) continue;
        await client.query(
          `INSERT INTO ${T('journal')} (day, at, session, kind, letter, line) VALUES ($1, $2, $3, $4, $5, $6)`,
          [day, entry.at ?? `${day}T00:00:00Z`, entry.session ?? null, entry.kind ?? null, entry.type, line],
        );
        counts.journal++;
      }
    }
    for (const [table, sub] of [
      ['handoffs', 'handoffs'],
      ['sessions', 'sessions'],
      ['invocations', 'invocations'],
      ['subscriptions', 'subscriptions'],
    ] as const) {
      for (const name of list(join(dir, sub), '.json')) {
        const id = name.slice(0, -5);
        const text = readFileSync(join(dir, sub, name), 'utf8');
        await insertRecord(client, table, id, text);
        counts[table]++;
      }
    }
    for (const [table, key, sub, suffix, count] of [
      ['invocation_events', 'invocation', 'invocations', '.events.jsonl', 'events'],
      ['emissions', 'subscription', 'subscriptions', '.emissions.jsonl', 'emissions'],
    ] as const) {
      for (const name of list(join(dir, sub), suffix)) {
        const id = name.slice(0, -suffix.length);
        for (const line of readFileSync(join(dir, sub, name), 'utf8').split('\n')) {
          let seq: number;
          try {
            seq = (JSON.parse(line) as { seq: number }).seq;
          } catch {
            continue; // a blank line, or one cut by a crash mid-write (the embedded reader skips it too)
          }
          await client.query(
            `INSERT INTO ${T(table)} (${key}, seq, line) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
            [id, seq, line],
          );
          counts[count]++;
        }
      }
    }
    await client.query('COMMIT');
    return counts;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

type Client = pg.PoolClient;

async function insertRecord(client: Client, table: string, id: string, text: string): Promise<void> {
  const record = JSON.parse(text) as Record<string, unknown>;
  const now = new Date().toISOString();
  if (table === 'handoffs') {
    await client.query(`INSERT INTO ${T(table)} (id, text, sha256, session) VALUES ($1, $2, $3, $4)`, [
      id,
      text,
      sha256Hex(text),
      record.from_session ?? null,
    ]);
  } else if (table === 'sessions') {
    await client.query(`INSERT INTO ${T(table)} (id, text) VALUES ($1, $2)`, [id, text]);
  } else if (table === 'invocations') {
    await client.query(
      `INSERT INTO ${T(table)} (id, idempotency_key, state, attempt, text, created, updated)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        id,
        record.idempotency_key ?? null,
        record.state ?? 'failed',
        record.attempt ?? 1,
        text,
        record.created ?? now,
        record.updated ?? now,
      ],
    );
  } else {
    await client.query(`INSERT INTO ${T(table)} (id, state, text, created) VALUES ($1, $2, $3, $4)`, [
      id,
      record.state ?? 'closed',
      text,
      record.created ?? now,
    ]);
  }
}

function list(dir: string, suffix: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith(suffix))
      .sort();
  } catch {
    return [];
  }
}

function write(file: string, text: string): void {
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text, { flag: 'wx' });
}
