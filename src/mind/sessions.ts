import { join } from 'node:path';
import { memoByFiles, readTextIfExists, withFileLock, writeFileAtomically } from '../core/index.js';

/** One session start, as remembered in `<home>/sessions.json`. */
export interface SessionRecord {
  session_id: string | null;
  at: string;
}

interface SessionsFile {
  current: SessionRecord | null;
  previous: SessionRecord | null;
}

interface SessionLedgerOptions {
  /**
   * Record session starts after the caller got its answer (servers): the previous session is
   * read first, the write (lock + fsync) follows, coalesced, and `flush()` drains it on shutdown.
   * Off, `previousFor` writes before it returns (one-shot commands that exit right after).
   */
  deferWrites?: boolean;
  /** Told when a write fails; the starts are kept and the next flush retries them. */
  onWriteError?: (error: Error) => void;
}

/** Keys remembered per process; a long-running HTTP server sees one per connection. */
const MAX_SEEN = 1000;
/** How far before a connection a host's SessionStart hook may have recorded the same session. */
const SAME_START_WINDOW_MS = 120_000;

function sessionsPath(home: string): string {
  return join(home, 'sessions.json');
}

function readSessions(path: string): SessionsFile {
  try {
    const parsed = JSON.parse(readTextIfExists(path) ?? 'null') as SessionsFile | null;
    return { current: parsed?.current ?? null, previous: parsed?.previous ?? null };
  } catch {
    return { current: null, previous: null };
  }
}

/**
 * Replays session starts in time order into `{current, previous}`. A start with the id of the
 * current session is the same session seen again (a second connection, a re-call), not a new one.
 */
function fold(records: (SessionRecord | null)[]): SessionsFile {
  const sorted = records
    .filter((r): r is SessionRecord => r !== null)
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  let state: SessionsFile = { current: null, previous: null };
  for (const record of sorted) {
    if (record.session_id !== null && record.session_id === state.current?.session_id) continue;
    state = { current: record, previous: state.current };
  }
  return state;
}

/**
 * The session before this one (for "time since the last session"), recording this one's start
 * when it is new. bootstrap_session runs at every start, so a repeat costs a map lookup and a
 * new session a stat (plus, deferred, a write nobody waits for). Writes merge with what other
 * processes recorded meanwhile, under the file's lock: several servers share one home.
 */
export class SessionLedger {
  private readonly path: string;
  private readonly options: SessionLedgerOptions;
  private readonly seen = new Map<string, SessionRecord | null>();
  private readonly onDisk: () => SessionsFile;
  /** Starts recorded here and not yet written, oldest first. */
  private pending: SessionRecord[] = [];
  /**
   * Starts taken out of `pending` by a write that has not landed (it may be waiting for the
   * lock). resolve() folds them in too: until the file holds them, they exist nowhere else.
   */
  private inFlight: SessionRecord[] = [];
  private writes: Promise<void> = Promise.resolve();
  private scheduled = false;

  constructor(home: string, options: SessionLedgerOptions = {}) {
    this.path = sessionsPath(home);
    this.options = options;
    this.onDisk = memoByFiles(() => ({ value: readSessions(this.path), files: [this.path] }));
  }

  /** The previous session relative to `sessionKey`, recording this session's start on first sight. */
  async previousFor(
    sessionKey: string,
    sessionId: string | null,
    now: Date,
    options: { connectedAt?: Date | undefined } = {},
  ): Promise<SessionRecord | null> {
    if (this.seen.has(sessionKey)) return this.seen.get(sessionKey) ?? null;
    const { previous, known } = this.resolve(sessionId, options.connectedAt);
    if (!known) {
      this.pending.push({ session_id: sessionId, at: now.toISOString() });
      if (this.options.deferWrites) this.schedule();
      else await this.flush();
    }
    if (this.seen.size >= MAX_SEEN) this.seen.delete(this.seen.keys().next().value as string);
    this.seen.set(sessionKey, previous);
    return previous;
  }

  /** The same answer without recording anything (`packet`, the `context` tool). */
  peekPrevious(
    sessionKey: string,
    sessionId: string | null,
    options: { connectedAt?: Date | undefined } = {},
  ): SessionRecord | null {
    if (this.seen.has(sessionKey)) return this.seen.get(sessionKey) ?? null;
    return this.resolve(sessionId, options.connectedAt).previous;
  }

  /**
   * Whether this call belongs to the newest recorded session (`known`), and the session before it.
   * Models call bootstrap_session() without the host's session id, right after the host's
   * SessionStart hook recorded the session under that id. So an id-less call whose connection
   * began after (or shortly before) the newest start with an id is part of that session;
   * otherwise every packet would name its own session as the last one, "moments ago".
   */
  private resolve(
    sessionId: string | null,
    connectedAt: Date | undefined,
  ): { known: boolean; previous: SessionRecord | null } {
    const file = this.onDisk();
    const { current, previous } = fold([file.previous, file.current, ...this.inFlight, ...this.pending]);
    if (current === null) return { known: false, previous: null };
    const known =
      sessionId !== null
        ? current.session_id === sessionId
        : current.session_id !== null &&
          connectedAt !== undefined &&
          Date.parse(current.at) >= connectedAt.getTime() - SAME_START_WINDOW_MS;
    return known ? { known, previous } : { known, previous: current };
  }

  /** Writes every recorded start not yet on disk; resolves when done (a failure is reported, not thrown). */
  flush(): Promise<void> {
    this.writes = this.writes.then(() => this.writePending());
    return this.writes;
  }

  /** One write per burst: starts recorded while a write is in flight ride on the next one. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate runs after the pending microtasks, which include sending the response.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async writePending(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.inFlight = batch;
    try {
      await withFileLock(this.path, async () => {
        const file = readSessions(this.path);
        const next = fold([file.previous, file.current, ...batch]);
        await writeFileAtomically(this.path, `${JSON.stringify(next, null, 2)}\n`);
      });
    } catch (error) {
      // Keep the starts for the next flush (shutdown at the latest) rather than lose them; a
      // home we cannot write degrades "time since the last session", never the bootstrap call.
      this.pending = [...batch, ...this.pending];
      this.options.onWriteError?.(error as Error);
    } finally {
      // Written (the file now holds them) or back in `pending`: either way no longer in flight.
      this.inFlight = [];
    }
  }
}
