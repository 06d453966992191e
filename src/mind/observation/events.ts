import { dirname, join } from 'node:path';
import { appendStateLine as appendLine, readStateTail as readTailLines } from '../../core/confine.js';
import { redactedJson } from '../../core/redact/index.js';

/** One line of `events/YYYY-MM-DD.jsonl`, written by observe/reflect or by a host's hooks. */
export interface CognitionEvent {
  id: string;
  ts: string;
  kind: 'observe' | 'reflect';
  /** Who wrote it: the agent through the MCP tools (absent, the default) or a host hook. */
  source?: 'tool' | 'hook';
  session?: string;
  /** The host whose hook recorded it (`source: hook`). */
  host?: string;
  tool_name?: string;
  args?: string;
  args_hash?: string;
  expected?: string;
  result?: string;
  /** `source: hook`: how the call ended (`denied`: a PreToolUse hook refused it). */
  outcome?: 'ok' | 'error' | 'denied';
  /** `source: hook`: the error the host reported. */
  error?: string;
  /** `source: hook`: how long the tool ran, where the host says. */
  duration_ms?: number;
  /** `source: hook`: the host's id for the call. */
  tool_use_id?: string;
  observation?: string;
  reflect_kind?: string;
  /** `reflect`: the observations (event ids) this reflection draws on. */
  cites?: string[];
  prediction_error?: number | null;
  /** The before-call event whose `expected` this result was compared with. */
  expectation_of?: string;
}

/** The day file an event at `at` goes to (UTC, so every process agrees). */
export function eventFileFor(eventsDir: string, at: Date): string {
  return join(eventsDir, `${at.toISOString().slice(0, 10)}.jsonl`);
}

/**
 * Appends one event as one line: one write with O_APPEND (core/append-log), so concurrent
 * writers never interleave within a line and a killed one cannot tear a line it handed to the
 * kernel. Fields are clipped upstream so a line stays small. Every string field passes the
 * home's redactor on the way (secrets and `<private>` blocks never reach the file).
 */
export function appendEvent(eventsDir: string, event: CognitionEvent, at: Date): void {
  appendLine(eventFileFor(eventsDir, at), redactedJson(dirname(eventsDir), 'event', event, at));
}

/** How much of a day file's tail is searched for a pending expectation (the recent past). */
export const TAIL_BYTES = 256 * 1024;

/**
 * The events at the end of a day file, newest last; torn or foreign lines are skipped. A file
 * that does not exist holds no events; any other error (EACCES, …) is thrown. `keep` filters on
 * the raw line before it is parsed (a cheap substring test keeps a hook from parsing 256 KB).
 */
export function readRecentEvents(
  file: string,
  maxBytes = TAIL_BYTES,
  keep?: (line: string) => boolean,
): CognitionEvent[] {
  const tail = readTailLines(file, maxBytes);
  const out: CognitionEvent[] = [];
  for (const line of tail?.lines ?? []) {
    if (keep && !keep(line)) continue;
    try {
      const parsed = JSON.parse(line) as CognitionEvent;
      if (parsed && typeof parsed.id === 'string') out.push(parsed);
    } catch {
      // A torn last line (power loss) or a hand edit: skip it, keep the rest.
    }
  }
  return out;
}
