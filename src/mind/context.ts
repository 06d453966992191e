import { homePaths, memoByFiles, readTextIfExists } from '../core/index.js';
import { bodyOf } from './memory/fast-frontmatter.js';
import type { ActiveContext } from './packet-schema.js';
import type { SessionRecord } from './sessions.js';

/** At most this many carry-forward bullets: the newest are at the end of the file. */
const RECENT_CARRY_FORWARD = 10;

const bulletMemos = new Map<string, () => string[]>();

/** {@link readBullets}, re-reading only when the file changed. */
function cachedBullets(path: string): string[] {
  let memo = bulletMemos.get(path);
  if (!memo) {
    memo = memoByFiles(() => ({ value: readBullets(path), files: [path] }));
    bulletMemos.set(path, memo);
  }
  return memo();
}

/** Bullet items (`- x` or `* x`) of a markdown file, frontmatter skipped, done items (`[x]`) left out. */
export function readBullets(path: string): string[] {
  const text = readTextIfExists(path);
  if (text === undefined) return [];
  // The body alone: the frontmatter is skipped, never parsed (no YAML parser at session start).
  const body = bodyOf(text);
  const items: string[] = [];
  for (const line of body.split('\n')) {
    const match = /^\s*[-*+]\s+(.*\S)\s*$/.exec(line);
    if (!match) continue;
    let item = match[1]!;
    if (/^\[[xX]\]/.test(item)) continue;
    item = item.replace(/^\[ \]\s*/, '');
    items.push(item);
  }
  return items;
}

export interface ContextInput {
  home: string;
  sessionId: string | null;
  /** From the memory overview (`type: user` memories). */
  people: ActiveContext['people'];
  lastSession: SessionRecord | null;
  now: Date;
}

/** The active context: commitments, carry-forward, people, and how long it has been. */
export function buildActiveContext(input: ContextInput): ActiveContext {
  const paths = homePaths(input.home);
  let lastSession: ActiveContext['last_session'] = null;
  if (input.lastSession) {
    const seconds = Math.max(0, Math.round((input.now.getTime() - Date.parse(input.lastSession.at)) / 1000));
    lastSession = {
      session_id: input.lastSession.session_id,
      at: input.lastSession.at,
      seconds_ago: seconds,
      human: humanDuration(seconds),
    };
  }
  return {
    session_id: input.sessionId,
    now: input.now.toISOString(),
    open_commitments: cachedBullets(paths.commitments),
    recent_carry_forward: cachedBullets(paths.carryForward).slice(-RECENT_CARRY_FORWARD),
    people: input.people,
    last_session: lastSession,
  };
}

/** "3 days ago", "40 minutes ago". */
export function humanDuration(seconds: number): string {
  const units: [number, string][] = [
    [86_400 * 365, 'year'],
    [86_400 * 30, 'month'],
    [86_400 * 7, 'week'],
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    if (seconds >= size) {
      const n = Math.floor(seconds / size);
      return `${n} ${name}${n === 1 ? '' : 's'} ago`;
    }
  }
  return 'moments ago';
}
