import { basename } from 'node:path';
import { withFileLock } from '../core/index.js';
import {
  needsUpkeep,
  type SessionFiles,
  type SessionRecord,
  type SessionsRead,
  SessionsReader,
  sessionFiles,
  upkeep,
} from './session-files.js';

export type { SessionRecord } from './session-files.js';

interface SessionLogOptions {
  /** Told about a start that could not be recorded and about files moved aside. */
  onProblem?: (message: string) => void;
}

/** Keys remembered per process; a long-running HTTP server sees one per connection. */
const MAX_SEEN = 1000;
/** How far before a connection a host's SessionStart hook may have recorded the same session. */
const SAME_START_WINDOW_MS = 120_000;

/**
 * Replays session starts in time order into `{current, previous}`. A start with the id of the
 * current session is the same session seen again (a second connection, a re-call), not a new
 * one; so is an exact copy of the current start.
 */
function fold(records: readonly SessionRecord[]): {
  current: SessionRecord | null;
  previous: SessionRecord | null;
} {
  // The files hold starts in the order they were appended, nearly always time order: sorting
  // (with a copy) only when they are not costs a comparison per start instead of a sort.
  const inOrder = records.every((record, i) => i === 0 || records[i - 1]!.at <= record.at);
  const sorted = inOrder ? records : [...records].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  let current: SessionRecord | null = null;
  let previous: SessionRecord | null = null;
  for (const record of sorted) {
    const same =
      current !== null &&
      (record.session_id !== null ? record.session_id === current.session_id : record.at === current.at);
    if (same) continue;
    previous = current;
    current = record;
  }
  return { current, previous };
}

/**
 * "Time since the last session": the session starts of a home, in `sessions.jsonl`. A new
 * session appends one line (O_APPEND, no lock, no fsync: it costs microseconds, so it is done
 * before bootstrap_session answers); the answer is read from the log's tail. Several servers
 * share a home, so the log is the only truth; this object only remembers, per session key, the
 * answer it gave first.
 */
export class SessionLog {
  private readonly files: SessionFiles;
  private readonly onProblem: (message: string) => void;
  private readonly seen = new Map<string, SessionRecord | null>();
  private readonly reader: SessionsReader;
  private readonly read: () => SessionsRead;
  /** Files moved aside and failed writes, until a packet reports them. */
  private notices: string[] = [];
  /** fold() of the records last read (the reader hands back the same array while nothing changed). */
  private folded: { records: readonly SessionRecord[]; result: ReturnType<typeof fold> } | undefined;

  constructor(home: string, options: SessionLogOptions = {}) {
    this.files = sessionFiles(home);
    this.onProblem = options.onProblem ?? (() => {});
    this.reader = new SessionsReader(this.files);
    this.read = () => this.reader.read();
  }

  /** The previous session relative to `sessionKey`, recording this session's start on first sight. */
  async previousFor(
    sessionKey: string,
    sessionId: string | null,
    now: Date,
    options: { connectedAt?: Date | undefined } = {},
  ): Promise<SessionRecord | null> {
    if (this.seen.has(sessionKey)) return this.seen.get(sessionKey) ?? null;
    const read = this.read();
    const { previous, known } = this.resolve(read, sessionId, options.connectedAt);
    if (!known) await this.record(read, { session_id: sessionId, at: now.toISOString() }, now);
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
    return this.resolve(this.read(), sessionId, options.connectedAt).previous;
  }

  /**
   * What is wrong with the session files, for the packet's degraded reasons: files that cannot
   * be read or hold unreadable entries (moved aside at the next recorded start), and, once
   * each, what this process moved aside or failed to record.
   */
  problems(): string[] {
    const read = this.read();
    const present = [
      ...read.unreadable.map(({ file, problem }) => `${basename(file)} ${problem}`),
      ...read.corrupt.map(
        ({ file, problem }) =>
          `${basename(file)}: ${problem}; it is moved aside at the next recorded session start`,
      ),
    ];
    return [...present, ...this.notices.splice(0)].map((p) => `sessions: ${p}`);
  }

  /**
   * Whether this call belongs to the newest recorded session (`known`), and the session before it.
   * Models call bootstrap_session() without the host's session id, right after the host's
   * SessionStart hook recorded the session under that id. So an id-less call whose connection
   * began after (or shortly before) the newest start with an id is part of that session;
   * otherwise every packet would name its own session as the last one, "moments ago".
   */
  private resolve(
    read: SessionsRead,
    sessionId: string | null,
    connectedAt: Date | undefined,
  ): { known: boolean; previous: SessionRecord | null } {
    const { current, previous } = this.fold(read.records);
    if (current === null) return { known: false, previous: null };
    const known =
      sessionId !== null
        ? current.session_id === sessionId
        : current.session_id !== null &&
          connectedAt !== undefined &&
          Date.parse(current.at) >= connectedAt.getTime() - SAME_START_WINDOW_MS;
    return known ? { known, previous } : { known, previous: current };
  }

  private fold(records: readonly SessionRecord[]): ReturnType<typeof fold> {
    if (this.folded?.records !== records) this.folded = { records, result: fold(records) };
    return this.folded.result;
  }

  /**
   * Appends a start. Upkeep (moving corrupt files aside, folding in `sessions.json`, rotating)
   * takes the log's lock; appending does not. A failure is reported, never thrown: a home we
   * cannot write costs "time since the last session", not the bootstrap call.
   */
  private async record(read: SessionsRead, start: SessionRecord, now: Date): Promise<void> {
    const report = (message: string) => {
      this.notices.push(message);
      this.onProblem(message);
    };
    if (needsUpkeep(read)) {
      try {
        const moved = await withFileLock(this.files.log, async () => upkeep(this.files, now));
        for (const notice of moved) report(notice);
      } catch (error) {
        report(`could not tidy the session files: ${(error as Error).message}`);
      }
    }
    try {
      this.reader.append(start);
    } catch (error) {
      report(`could not record the session start: ${(error as Error).message}`);
    }
  }
}
