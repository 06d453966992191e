import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isFirstlightError, SystemError } from '../../core/index.js';
import { type CognitionEvent, readRecentEvents as readTail } from '../observation/index.js';

export type { CognitionEvent } from '../observation/index.js';
export { appendEvent, eventFileFor } from '../observation/index.js';

/**
 * The events at the end of a day file, newest last; torn or foreign lines are skipped. A file
 * that does not exist holds no events; one that cannot be read (EACCES, …) is an error naming it.
 */
export function readRecentEvents(file: string, maxBytes?: number): CognitionEvent[] {
  try {
    return readTail(file, maxBytes);
  } catch (error) {
    if (isFirstlightError(error)) throw error;
    throw new SystemError(`could not read cognition events from ${file}: ${(error as Error).message}`, {
      code: 'EVENTS_UNREADABLE',
      hint: `make ${file} readable by this user (or move it out of events/)`,
      cause: error,
    });
  }
}

export interface EventQuery {
  /** Only events at or after this time. */
  since?: Date;
  /** Only events whose tool_name matches (a glob, as `applies_to` takes). */
  tool?: (toolName: string) => boolean;
  /** The newest this many (default 50). */
  limit?: number;
}

export interface EventListing {
  /** Oldest first, the newest `limit` that matched. */
  events: CognitionEvent[];
  /** How many matched in all (more than `events.length` when the limit cut). */
  matched: number;
  /** Day files read. */
  files: number;
  /** Lines that are not events (torn by a crash, edited by hand). */
  skipped_lines: number;
}

const DAY_FILE = /^\d{4}-\d{2}-\d{2}\.jsonl$/;

/**
 * Events from the day files, newest files first, stopping once `limit` matches are found (a
 * year of events is never read for the last fifty). Day files before `since`'s UTC day are not
 * opened. Reads only.
 */
export function listEvents(eventsDir: string, query: EventQuery = {}): EventListing {
  const limit = query.limit ?? 50;
  let days: string[];
  try {
    days = readdirSync(eventsDir).filter((n) => DAY_FILE.test(n));
  } catch {
    days = [];
  }
  days.sort().reverse();
  const sinceDay = query.since ? `${query.since.toISOString().slice(0, 10)}.jsonl` : undefined;
  const sinceIso = query.since?.toISOString();
  const found: CognitionEvent[] = [];
  let matched = 0;
  let files = 0;
  let skipped = 0;
  for (const day of days) {
    if (sinceDay && day < sinceDay) break;
    const file = join(eventsDir, day);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new SystemError(`could not read cognition events from ${file}: ${(error as Error).message}`, {
        code: 'EVENTS_UNREADABLE',
        hint: `make ${file} readable by this user (or move it out of events/)`,
        cause: error,
      });
    }
    files++;
    const lines = text.split('\n');
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i]!;
      if (line.trim() === '') continue;
      let event: CognitionEvent;
      try {
        event = JSON.parse(line) as CognitionEvent;
      } catch {
        skipped++;
        continue;
      }
      if (!event || typeof event.id !== 'string' || typeof event.ts !== 'string') {
        skipped++;
        continue;
      }
      if (sinceIso && event.ts < sinceIso) continue;
      if (query.tool && !(event.tool_name !== undefined && query.tool(event.tool_name))) continue;
      matched++;
      if (found.length < limit) found.push(event);
    }
  }
  found.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
  return { events: found, matched, files, skipped_lines: skipped };
}
