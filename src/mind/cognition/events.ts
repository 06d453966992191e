import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';

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

/**
 * Appends one event as one line in ONE write call with O_APPEND: concurrent writers on a local
 * file system do not interleave within a write, and a killed process cannot tear a line it has
 * handed to the kernel. Fields are clipped so a line stays small.
 */
export function appendEvent(eventsDir: string, event: CognitionEvent, at: Date): void {
  mkdirSync(eventsDir, { recursive: true });
  appendFileSync(eventFileFor(eventsDir, at), `${JSON.stringify(event)}\n`, { flag: 'a' });
}

/** How much of a day file's tail is searched for a pending expectation (the recent past). */
const TAIL_BYTES = 256 * 1024;

/** The events at the end of a day file, newest last; torn or foreign lines are skipped. */
export function readRecentEvents(file: string, maxBytes = TAIL_BYTES): CognitionEvent[] {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - maxBytes);
    const buffer = Buffer.alloc(size - start);
    readSync(fd, buffer, 0, buffer.length, start);
    const lines = buffer.toString('utf8').split('\n');
    if (start > 0) lines.shift(); // the first line is probably cut
    const out: CognitionEvent[] = [];
    for (const line of lines) {
      if (!line.trim()) continue;
      try {
        const parsed = JSON.parse(line) as CognitionEvent;
        if (parsed && typeof parsed.id === 'string') out.push(parsed);
      } catch {
        // A torn last line (power loss) or a hand edit: skip it, keep the rest.
      }
    }
    return out;
  } catch {
    return [];
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
