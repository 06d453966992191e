/**
 * @module mind/bootstrap-record — firstlight's own proof that a session bootstrapped. The mind
 * server writes one small file per session id when `bootstrap_session` (or the legacy
 * `get_system_prompt`) succeeds with that id; the PreToolUse gate reads it on hosts whose
 * transcript cannot prove bootstrap (Copilot CLI, VS Code, Cursor), and as a second proof on
 * the others. A light face: node built-ins only, because the gate loads it on every tool call;
 * the writer imports write-file-atomic when it first writes.
 *
 * Layout: `<home>/cache/bootstraps/<sha256(session id)>.json` holding
 * `{"v":1,"session_id":"…","at":"<ISO time>","via":"bootstrap_session"}`. The file name is a
 * hash so any id (VS Code's are URIs) is a safe name; the id inside guards against a collision.
 * Writes go through write-file-atomic (a temporary file beside the record, renamed over it), so
 * a reader sees a whole record or none, whichever of many servers on one home wrote last. Not
 * fsynced: the fsync was most of a bootstrap_session's time (about 4 of 6 ms a call), and the
 * server's next call waits for the write; a record lost to a power cut costs the agent one more
 * bootstrap_session call, since a missing or torn record reads as none. A write prunes records
 * older than {@link KEEP_DAYS} days and the oldest beyond {@link MAX_RECORDS}, at most every
 * {@link PRUNE_EVERY_MS} per home and process (a prune stats every record).
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../../core/text/index.js';

/** Records older than this are pruned: a session resumed later bootstraps again. */
export const KEEP_DAYS = 30;
/** At most this many records are kept (the newest). */
export const MAX_RECORDS = 2000;
/** A temporary file this old belongs to a writer that died before its rename. */
const STALE_TMP_MS = 10 * 60 * 1000;
const DAY_MS = 24 * 3600 * 1000;
/** A process prunes a home's records at most this often (a prune cost a write about 2 ms). */
export const PRUNE_EVERY_MS = 10 * 60 * 1000;
/** When this process last pruned each home (by the writes' clock). */
const lastPrune = new Map<string, number>();

/**
 * Which call proved bootstrap: the server's record of the call, or the gate's of a successful
 * call it found in the host's transcript (kept so the session's later tool calls need not scan
 * the transcript again).
 */
export type BootstrapVia = 'bootstrap_session' | 'get_system_prompt' | 'transcript';

export interface BootstrapRecord {
  v: 1;
  session_id: string;
  /** When the call succeeded (ISO 8601). */
  at: string;
  via: BootstrapVia;
}

export function bootstrapRecordDir(home: string): string {
  return join(home, 'cache', 'bootstraps');
}

export function bootstrapRecordPath(home: string, sessionId: string): string {
  const name = sha256Hex(sessionId);
  return join(bootstrapRecordDir(home), `${name}.json`);
}

export interface WriteBootstrapOptions {
  now: Date;
  via: BootstrapVia;
  /** Pruning bounds (tests shrink them). */
  keepDays?: number;
  maxRecords?: number;
}

/**
 * Records a successful bootstrap for `sessionId`, atomically, then prunes when this process has
 * not pruned the home for {@link PRUNE_EVERY_MS}. Rejects on I/O failure.
 */
export async function writeBootstrapRecord(
  home: string,
  sessionId: string,
  options: WriteBootstrapOptions,
): Promise<void> {
  const dir = bootstrapRecordDir(home);
  mkdirSync(dir, { recursive: true });
  const record: BootstrapRecord = {
    v: 1,
    session_id: sessionId,
    at: options.now.toISOString(),
    via: options.via,
  };
  // Imported here, not at the top: the gate loads this module on every tool call and only reads.
  const { default: writeFileAtomic } = await import('write-file-atomic');
  const file = bootstrapRecordPath(home, sessionId);
  if (!regularOrAbsent(file))
    throw new Error(`refused ${file}: not a regular file (a symlink, FIFO or device)`);
  // The synchronous write: the promisified one took twice the CPU (measured 1.4 against 0.7 ms
  // a record, 2,000 records), on the event loop the server's next call waits for.
  writeFileAtomic.sync(file, `${JSON.stringify(record)}\n`, { fsync: false });
  const at = options.now.getTime();
  const last = lastPrune.get(home);
  if (last === undefined || at - last >= PRUNE_EVERY_MS || at < last) {
    lastPrune.set(home, at);
    pruneBootstrapRecords(home, options.now, options);
  }
}

/**
 * True when `file` is a regular file (not a symlink) or does not exist. The gate loads this
 * module on every tool call, so it checks with one lstat instead of importing core's
 * confineFile (which brings the write libraries along); records are never links.
 */
function regularOrAbsent(file: string): boolean {
  try {
    return lstatSync(file).isFile();
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * Removes the record for `sessionId` (a later bootstrap_session of the session said the mind is
 * degraded: the gate closes again until one succeeds). Synchronous, so the answer that reports
 * the degraded mind goes out after the gate has closed. True when a record was there.
 */
export function removeBootstrapRecord(home: string, sessionId: string): boolean {
  const file = bootstrapRecordPath(home, sessionId);
  try {
    lstatSync(file);
  } catch {
    return false;
  }
  rmSync(file, { force: true });
  return true;
}

/** The record for `sessionId`, or null when there is none or it is unreadable. */
export function readBootstrapRecord(home: string, sessionId: string): BootstrapRecord | null {
  let text: string;
  const file = bootstrapRecordPath(home, sessionId);
  // Records are only ever regular files: a FIFO here would hang the gate, a link would read elsewhere.
  if (!regularOrAbsent(file)) return null;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  try {
    const parsed = JSON.parse(text) as Partial<BootstrapRecord> | null;
    if (parsed?.v !== 1 || parsed.session_id !== sessionId || typeof parsed.at !== 'string') return null;
    return parsed as BootstrapRecord;
  } catch {
    return null;
  }
}

/**
 * Removes records older than `keepDays`, then the oldest beyond `maxRecords`, and temporary
 * files a dead writer left (any name not ending `.json`: write-file-atomic's `<record>.<number>`,
 * or an older release's `….tmp`). Safe to race with writers and other pruners; returns how many went.
 */
export function pruneBootstrapRecords(
  home: string,
  now: Date,
  options: { keepDays?: number; maxRecords?: number } = {},
): number {
  const dir = bootstrapRecordDir(home);
  const keepMs = (options.keepDays ?? KEEP_DAYS) * DAY_MS;
  const max = options.maxRecords ?? MAX_RECORDS;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  const kept: { name: string; mtime: number }[] = [];
  for (const name of names) {
    let mtime: number;
    try {
      mtime = statSync(join(dir, name)).mtimeMs;
    } catch {
      continue; // renamed or pruned by another process meanwhile
    }
    const age = now.getTime() - mtime;
    const record = name.endsWith('.json');
    const stale = record ? age > keepMs : age > STALE_TMP_MS;
    if (stale) removed += remove(join(dir, name));
    else if (record) kept.push({ name, mtime });
  }
  if (kept.length > max) {
    kept.sort((a, b) => a.mtime - b.mtime);
    for (const { name } of kept.slice(0, kept.length - max)) removed += remove(join(dir, name));
  }
  return removed;
}

function remove(path: string): number {
  try {
    rmSync(path, { force: true });
    return 1;
  } catch {
    return 0;
  }
}
