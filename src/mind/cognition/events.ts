import { join } from 'node:path';
import { appendStateLine, isFirstlightError, readStateTail, SystemError } from '../../core/index.js';

/** One line of `events/YYYY-MM-DD.jsonl`. */
export interface CognitionEvent {
  id: string;
  ts: string;
  kind: 'observe' | 'reflect';
  session?: string;
  tool_name?: string;
  args?: string;
  args_hash?: string;
  expected?: string;
  result?: string;
  observation?: string;
  reflect_kind?: string;
  prediction_error?: number | null;
  /** The before-call event whose `expected` this result was compared with. */
  expectation_of?: string;
}

/** The day file an event at `at` goes to (UTC, so every process agrees). */
export function eventFileFor(eventsDir: string, at: Date): string {
  return join(eventsDir, `${at.toISOString().slice(0, 10)}.jsonl`);
}

/** Appends one event as one line (O_APPEND, one write: see appendLine). Fields are clipped upstream so a line stays small. */
export function appendEvent(eventsDir: string, event: CognitionEvent, at: Date): void {
  appendStateLine(eventFileFor(eventsDir, at), JSON.stringify(event));
}

/** How much of a day file's tail is searched for a pending expectation (the recent past). */
const TAIL_BYTES = 256 * 1024;

/**
 * The events at the end of a day file, newest last; torn or foreign lines are skipped. A file
 * that does not exist holds no events; one that cannot be read (EACCES, …) is an error naming it.
 */
export function readRecentEvents(file: string, maxBytes = TAIL_BYTES): CognitionEvent[] {
  let tail: ReturnType<typeof readStateTail>;
  try {
    tail = readStateTail(file, maxBytes);
  } catch (error) {
    if (isFirstlightError(error)) throw error;
    throw new SystemError(`could not read cognition events from ${file}: ${(error as Error).message}`, {
      code: 'EVENTS_UNREADABLE',
      hint: `make ${file} readable by this user (or move it out of events/)`,
      cause: error,
    });
  }
  const out: CognitionEvent[] = [];
  for (const line of tail?.lines ?? []) {
    try {
      const parsed = JSON.parse(line) as CognitionEvent;
      if (parsed && typeof parsed.id === 'string') out.push(parsed);
    } catch {
      // A torn last line (power loss) or a hand edit: skip it, keep the rest.
    }
  }
  return out;
}
