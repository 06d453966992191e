/**
 * "Injected once per (session, source)": one marker file per pair under the home's cache,
 * claimed with an exclusive create so two racing SessionStart fires cannot both win. A
 * session's compactions are counted (PreCompact fires once before each), so the `compact`
 * source of the second compaction is a new pair and gets the packet again.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const KEEP_MS = 7 * 24 * 3600 * 1000;

export function ledgerDir(home: string): string {
  return join(home, 'cache', 'hook-sessions');
}

function markerName(sessionId: string, source: string): string {
  return `${sessionId}.${source}`.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 200);
}

/** True when this call claimed the pair; false when it was injected before. */
export function claimInjection(home: string, sessionId: string, source: string, now: Date): boolean {
  const dir = ledgerDir(home);
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(join(dir, markerName(sessionId, source)), now.toISOString(), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  prune(dir, now);
  return true;
}

function counterFile(home: string, sessionId: string): string {
  return join(ledgerDir(home), markerName(sessionId, 'compactions'));
}

/** How many compactions PreCompact has announced for this session. */
export function compactions(home: string, sessionId: string): number {
  try {
    return Number.parseInt(readFileSync(counterFile(home, sessionId), 'utf8'), 10) || 0;
  } catch {
    return 0;
  }
}

/**
 * PreCompact: one more compaction is about to happen in this session. The read-modify-write
 * holds the counter's lock and replaces the file by an atomic rename, so neither a racing
 * PreCompact nor a reader (SessionStart) can see a torn count and reuse a `compact.N` already
 * claimed. Core (locks, atomic writes) loads here, off the SessionStart and gate paths.
 */
export async function countCompaction(home: string, sessionId: string): Promise<void> {
  const { withFileLock, writeFileAtomically } = await import('../../core/index.js');
  const file = counterFile(home, sessionId);
  await withFileLock(file, () => writeFileAtomically(file, String(compactions(home, sessionId) + 1)));
}

/** One SessionStart injection the ledger holds (kept a week). */
export interface Injection {
  /** The session id as the marker's name holds it (characters outside [A-Za-z0-9._-] read `_`). */
  session: string;
  /** `startup`, `resume`, `clear`, `compact.N`. */
  source: string;
  at: string;
}

const SOURCE = /\.(startup|resume|clear|compact\.\d+|compact)$/;

/** The injections the ledger holds, newest first (reads only). */
export function listInjections(home: string): Injection[] {
  let names: string[];
  try {
    names = readdirSync(ledgerDir(home));
  } catch {
    return [];
  }
  const out: Injection[] = [];
  for (const name of names) {
    const m = SOURCE.exec(name);
    if (!m) continue;
    let at: string;
    try {
      at = readFileSync(join(ledgerDir(home), name), 'utf8').trim();
    } catch {
      continue;
    }
    out.push({ session: name.slice(0, m.index), source: m[1]!, at });
  }
  return out.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
}

/** A session id as the ledger's marker names spell it. */
export function ledgerSessionName(sessionId: string): string {
  return sessionId.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** Gives a claim back (rendering failed: the next fire may try again). */
export function releaseInjection(home: string, sessionId: string, source: string): void {
  rmSync(join(ledgerDir(home), markerName(sessionId, source)), { force: true });
}

function prune(dir: string, now: Date): void {
  for (const name of readdirSync(dir)) {
    try {
      if (now.getTime() - statSync(join(dir, name)).mtimeMs > KEEP_MS)
        // recursive: a `.lock` left by a hook killed while holding it is a directory.
        rmSync(join(dir, name), { force: true, recursive: true });
    } catch {
      // raced with another pruner
    }
  }
}
