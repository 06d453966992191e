import { join } from 'node:path';
import { readTextIfExists, withFileLock, writeFileAtomically } from '../core/index.js';

/** One session start, as remembered in `<home>/sessions.json`. */
export interface SessionRecord {
  session_id: string | null;
  at: string;
}

interface SessionsFile {
  current: SessionRecord | null;
  previous: SessionRecord | null;
}

function sessionsPath(home: string): string {
  return join(home, 'sessions.json');
}

function readSessions(home: string): SessionsFile {
  try {
    const parsed = JSON.parse(readTextIfExists(sessionsPath(home)) ?? 'null') as SessionsFile | null;
    return { current: parsed?.current ?? null, previous: parsed?.previous ?? null };
  } catch {
    return { current: null, previous: null };
  }
}

/**
 * The session before this one (for "time since the last session"), recording this one's start
 * when it is new. Writes once per session, under a lock: bootstrap_session runs at every start
 * and must stay cheap on repeats.
 */
export class SessionLedger {
  private readonly home: string;
  private readonly seen = new Map<string, SessionRecord | null>();

  constructor(home: string) {
    this.home = home;
  }

  /** The previous session relative to `sessionKey`, recording `sessionKey` on first sight. */
  async previousFor(sessionKey: string, sessionId: string | null, now: Date): Promise<SessionRecord | null> {
    if (this.seen.has(sessionKey)) return this.seen.get(sessionKey) ?? null;
    const previous = await withFileLock(sessionsPath(this.home), async () => {
      const file = readSessions(this.home);
      if (file.current && file.current.session_id === sessionId && sessionId !== null) return file.previous;
      const next: SessionsFile = {
        current: { session_id: sessionId, at: now.toISOString() },
        previous: file.current,
      };
      await writeFileAtomically(sessionsPath(this.home), `${JSON.stringify(next, null, 2)}\n`);
      return file.current;
    });
    this.seen.set(sessionKey, previous);
    return previous;
  }

  /** Read-only view for one-shot commands (`packet`) that should not count as a session. */
  peekPrevious(sessionId: string | null): SessionRecord | null {
    const file = readSessions(this.home);
    if (file.current && sessionId !== null && file.current.session_id === sessionId) return file.previous;
    return file.current;
  }
}
