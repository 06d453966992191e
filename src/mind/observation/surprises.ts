/**
 * Unreflected surprises: observations whose prediction error crossed the stop line and that no
 * `reflect` has cited yet. The Stop hook offers a session's as candidates (it adds them to
 * `<home>/cache/unreflected-surprises.json`); `reflect(cites=[…])` takes them off; the next
 * packet counts what is left and names the top few.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { byCodeUnit } from '../../core/text/index.js';
import { clip } from './digest.js';
import { type CognitionEvent, eventFileFor, readRecentEvents } from './events.js';
import { STOP_LINE } from './prediction-error.js';

/** One surprise as the packet names it. */
export interface Surprise {
  event_id: string;
  at: string;
  session: string | null;
  tool: string;
  prediction_error: number;
  expected: string;
  outcome: string;
}

export interface SurpriseFile {
  v: 1;
  items: Surprise[];
}

/** Kept at most this long and this many (the newest). */
export const SURPRISE_KEEP_DAYS = 14;
export const SURPRISE_MAX = 50;
/** How far back in the day files Stop looks for a session's observations. */
const SCAN_BYTES = 4 * 1024 * 1024;

export function surprisesFile(home: string): string {
  return join(home, 'cache', 'unreflected-surprises.json');
}

export function readSurprises(home: string): Surprise[] {
  try {
    const parsed = JSON.parse(readFileSync(surprisesFile(home), 'utf8')) as SurpriseFile;
    return parsed.v === 1 && Array.isArray(parsed.items) ? parsed.items : [];
  } catch {
    return [];
  }
}

/**
 * A session's surprises not cited by any reflect in the scanned window: from today's and
 * yesterday's day files (their last SCAN_BYTES), parsing only lines that carry a prediction
 * error or a citation.
 */
export function sessionSurprises(home: string, session: string, now: Date): Surprise[] {
  const eventsDir = join(home, 'events');
  const files = new Set(
    [new Date(now.getTime() - 24 * 3600 * 1000), now].map((d) => eventFileFor(eventsDir, d)),
  );
  const keep = (line: string) =>
    line.includes('"prediction_error"') || line.includes('"cites"') || line.includes('"expected"');
  const events: CognitionEvent[] = [];
  for (const file of files) {
    try {
      events.push(...readRecentEvents(file, SCAN_BYTES, keep));
    } catch {
      // unreadable: nothing to offer from it
    }
  }
  const cited = new Set(events.flatMap((e) => e.cites ?? []));
  const byId = new Map(events.map((e) => [e.id, e]));
  return events
    .filter(
      (e) =>
        e.session === session &&
        typeof e.prediction_error === 'number' &&
        e.prediction_error > STOP_LINE &&
        !cited.has(e.id),
    )
    .map((e) => ({
      event_id: e.id,
      at: e.ts,
      session: e.session ?? null,
      tool: e.tool_name ?? '',
      prediction_error: e.prediction_error as number,
      expected: clip(byId.get(e.expectation_of ?? '')?.expected ?? e.expected ?? '', 300),
      outcome: clip(e.result ?? '', 300),
    }));
}

/** The list with `add` merged in (by event id) and `drop` taken out, pruned to the newest. */
export function mergeSurprises(
  items: Surprise[],
  add: Surprise[],
  drop: readonly string[],
  now: Date,
): Surprise[] {
  const gone = new Set(drop);
  const byId = new Map<string, Surprise>();
  for (const s of [...items, ...add]) if (!gone.has(s.event_id)) byId.set(s.event_id, s);
  const cutoff = now.getTime() - SURPRISE_KEEP_DAYS * 24 * 3600 * 1000;
  return [...byId.values()]
    .filter((s) => Date.parse(s.at) >= cutoff)
    .sort((a, b) => byCodeUnit(a.at, b.at))
    .slice(-SURPRISE_MAX);
}

/** The packet's view: how many, and the top few by prediction error, then recency. */
export function topSurprises(items: Surprise[], n: number): Surprise[] {
  return [...items]
    .sort((a, b) => b.prediction_error - a.prediction_error || byCodeUnit(b.at, a.at))
    .slice(0, n);
}

/**
 * Updates the surprise list under its lock (atomic replace): adds `add`, takes out `drop`. Core's
 * lock and atomic write load here, off the PreToolUse path (Stop and reflect call this).
 */
export async function updateSurprises(
  home: string,
  change: { add?: Surprise[]; drop?: readonly string[] },
  now: Date,
): Promise<Surprise[]> {
  const { withFileLock, writeFileAtomically } = await import('../../core/index.js');
  const file = surprisesFile(home);
  return withFileLock(file, async () => {
    const items = mergeSurprises(readSurprises(home), change.add ?? [], change.drop ?? [], now);
    const data: SurpriseFile = { v: 1, items };
    await writeFileAtomically(file, JSON.stringify(data));
    return items;
  });
}

/** Stop: offers the session's unreflected surprises for the next packet. */
export async function offerSurprises(home: string, session: string, now: Date): Promise<number> {
  const found = sessionSurprises(home, session, now);
  if (found.length === 0) return 0;
  await updateSurprises(home, { add: found }, now);
  return found.length;
}

/** One line for the packet: tool, error, what was expected and what came. */
export function surpriseLine(s: Surprise): string {
  const one = (t: string, n: number) => clip(t.replace(/\s+/g, ' ').trim(), n);
  return `${s.tool} (${s.prediction_error}): expected "${one(s.expected, 80)}", got "${one(s.outcome, 80)}" [${s.event_id}]`;
}
