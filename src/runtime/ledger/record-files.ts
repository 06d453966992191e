import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { appendLine, writeFileAtomicallySync } from '../../core/index.js';
import { type HandoffRecord, handoffText, type StoredHandoff, sha256Hex } from '../handoffs.js';
import type { SessionState } from '../sessions.js';
import type { StreamRecord } from './types.js';

/**
 * The file ledger's records besides the journal: handoffs (one JSON file each, hashed as
 * written), session state, JSON records written whole (invocations, subscriptions), and
 * streams as JSON lines (an invocation's events, a subscription's emissions).
 */

/** Ids that are safe as file names; any other id names nothing. */
const ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function safeId(id: string): boolean {
  return ID.test(id);
}

export function handoffsDir(ledger: string): string {
  return join(ledger, 'handoffs');
}

/** Reads a stored handoff by id with its file's sha256, or undefined. */
export function readStoredHandoff(
  ledger: string,
  id: string,
): (StoredHandoff & { file: string }) | undefined {
  if (!safeId(id)) return undefined;
  const file = join(handoffsDir(ledger), `${id}.json`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let record: HandoffRecord;
  try {
    record = JSON.parse(text) as HandoffRecord;
  } catch {
    // A stored handoff that no longer parses was changed by hand: its hash check says so.
    record = { id, kind: 'artifact', content: {}, created: '' };
  }
  return { record, file, location: file, sha256: sha256Hex(text) };
}

/** Reads a stored handoff by id, or undefined (unverified: for inspection; the pipeline verifies). */
export function readHandoff(ledger: string, id: string): HandoffRecord | undefined {
  return readStoredHandoff(ledger, id)?.record;
}

/**
 * Stores a handoff and returns its file and sha256 (which its journal row records). Its id is
 * new and published (returned, journaled) only after this write, so one exclusive create
 * (`wx`) is as safe as temp+rename here and costs one file creation instead of two plus a rename.
 */
export function writeHandoff(ledger: string, record: HandoffRecord): { file: string; sha256: string } {
  const dir = handoffsDir(ledger);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${record.id}.json`);
  const text = handoffText(record);
  writeFileSync(file, text, { flag: 'wx' });
  return { file, sha256: sha256Hex(text) };
}

export function sessionFile(ledger: string, id: string): string {
  return join(ledger, 'sessions', `${id}.json`);
}

export function readSession(ledger: string, id: string): SessionState | undefined {
  return readJsonRecord<SessionState>(sessionFile(ledger, id), id);
}

export function writeSession(ledger: string, state: SessionState): void {
  writeJsonRecord(sessionFile(ledger, state.id), state);
}

/** A JSON record by id, or undefined (an unsafe id names nothing). */
export function readJsonRecord<T>(file: string, id: string): T | undefined {
  if (!safeId(id)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Writes a record whole (temp file and rename): a reader sees the old one or the new. */
export function writeJsonRecord(file: string, record: unknown): void {
  writeFileAtomicallySync(file, `${JSON.stringify(record, null, 2)}\n`, { fsync: false });
}

/** Creates `file` holding `text` unless it exists; false when it did (another writer won). */
export function createExclusive(file: string, text: string): boolean {
  mkdirSync(dirname(file), { recursive: true });
  try {
    writeFileSync(file, text, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Appends stream records as one O_APPEND write (one JSON line each). */
export function appendStream(file: string, records: readonly StreamRecord[]): void {
  if (records.length === 0) return;
  appendLine(file, records.map((r) => JSON.stringify(r)).join('\n'));
}

/** The records numbered after `after`, at most `limit`, in order. */
export function readStream(file: string, after: number, limit: number): StreamRecord[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const out: StreamRecord[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let record: StreamRecord;
    try {
      record = JSON.parse(line) as StreamRecord;
    } catch {
      continue; // a line cut by a crash mid-write: the records after it still count
    }
    if (record.seq <= after) continue;
    out.push(record);
    if (out.length >= limit) break;
  }
  return out;
}
