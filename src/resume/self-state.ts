import { renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import {
  byCodeUnit,
  isFirstlightError,
  noteRedactions,
  type RedactionCounts,
  readStateFile,
  redactorFor,
  withFileLock,
  writeStateFile,
} from '../core/index.js';

/** Anchors kept per record (the newest; only the newest five are injected). */
export const MAX_STORED_ANCHORS = 50;
/** Per-session records kept (the most recently captured). */
export const MAX_STORED_SESSIONS = 50;
/** The stored tail is cut from the front beyond this (the injected budget is far smaller). */
export const MAX_STORED_TAIL_CHARS = 16_000;

/** A verbatim phrase the agent wants to wake up with, and what made it matter. */
export const anchorSchema = z.object({
  text: z.string(),
  trigger: z.string(),
  captured_at: z.string().optional(),
});
export type Anchor = z.infer<typeof anchorSchema>;

const injectionSchema = z.object({ at: z.string(), session_id: z.string().nullable() });

/** One capture: the agent's last words and its anchors, for the agent or for one session. */
export const captureRecordSchema = z.object({
  stream_tail: z.string(),
  anchors: z.array(anchorSchema),
  session_key: z.string(),
  /** The host session id of the capture, when it had one (session_key may be a connection key). */
  session_id: z.string().nullable().default(null),
  captured_at: z.string(),
  /** What captured the tail: `internalize`, `cli` (the agent chose it), `stop`, `pre-compact` (a hook read it off the transcript). */
  source: z.string().default('internalize'),
  /** Set when a clear-after-inject policy handed the tail to a session. */
  tail_injected: injectionSchema.nullable().default(null),
});
export type CaptureRecord = z.infer<typeof captureRecordSchema>;

/** Sources that read the tail off a transcript; every other source is the agent's own choice. */
const TRANSCRIPT_SOURCES = ['stop', 'pre-compact'] as const;
export type TranscriptSource = (typeof TRANSCRIPT_SOURCES)[number];

/** The agent stored this tail itself (`internalize`, `firstlight internalize`), not a hook. */
export function isDeliberate(record: Pick<CaptureRecord, 'source'>): boolean {
  return !(TRANSCRIPT_SOURCES as readonly string[]).includes(record.source);
}

/**
 * `self-state.json`: the newest capture at top level (the per-agent record) plus one record per
 * session id (read when `resumption.scope` is `session`). Both are always written, so changing
 * the scope loses nothing.
 */
export const selfStateSchema = captureRecordSchema.extend({
  version: z.literal(1).default(1),
  sessions: z.record(z.string(), captureRecordSchema).default({}),
});
export type SelfState = z.infer<typeof selfStateSchema>;

export type ReadResult =
  | { status: 'missing' }
  | { status: 'ok'; state: SelfState }
  | { status: 'malformed'; problem: string };

/** Reads self-state.json; a malformed file is reported, never thrown. */
export function readSelfState(file: string): ReadResult {
  let text: string | undefined;
  try {
    text = readStateFile(file);
  } catch (error) {
    // A symlink out of the home or a FIFO: malformed, so a capture moves it aside (the link
    // itself is renamed; what it points at is never read or written).
    if (isFirstlightError(error)) return { status: 'malformed', problem: error.message };
    throw error;
  }
  if (text === undefined) return { status: 'missing' };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { status: 'malformed', problem: `not valid JSON (${(error as Error).message})` };
  }
  const parsed = selfStateSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      status: 'malformed',
      problem: `${issue?.path.join('.') || '(top level)'}: ${issue?.message ?? 'invalid'}`,
    };
  }
  return { status: 'ok', state: parsed.data };
}

/** What a capture writes. `anchors` are appended (a repeated phrase moves to the newest place). */
export interface CaptureInput {
  streamTail: string;
  anchors?: readonly { text: string; trigger: string }[];
  /** The host session id, or a connection key when there is none. */
  sessionKey: string;
  /** A real host session id: also keys the per-session record. */
  sessionId?: string | null;
  source: string;
  now: Date;
  /**
   * A record (the per-agent one, or this session's) for which this returns true is left as it
   * is: the Stop hook's way of not replacing a deliberate tail (see captureFromTranscript).
   */
  keep?: (record: CaptureRecord) => boolean;
}

export interface CaptureResult {
  state: SelfState;
  /** False when `keep` left every record as it was (then nothing was written). */
  written: boolean;
  /** `keep` left at least one record as it was. */
  kept: boolean;
  /** Set when a malformed file was moved aside instead of being overwritten. */
  backup?: string;
}

/**
 * Records a capture under the self-state lock: read, merge, write atomically. A malformed file
 * is renamed aside (never silently replaced) and a fresh state is started.
 */
export async function captureSelfState(file: string, input: CaptureInput): Promise<CaptureResult> {
  return withFileLock(file, async () => {
    const current = readSelfState(file);
    let backup: string | undefined;
    if (current.status === 'malformed') {
      backup = join(dirname(file), `self-state.malformed-${input.now.getTime()}.json`);
      renameSync(file, backup);
    }
    const previous = current.status === 'ok' ? current.state : undefined;
    const at = input.now.toISOString();
    // The agent's own words pass the home's redactor: a key it echoed, a <private> block it quoted.
    const redactor = redactorFor(dirname(file));
    const counts: RedactionCounts = {};
    const added = (input.anchors ?? [])
      .map((a) => ({
        text: redactor.redact(a.text, counts).trim(),
        trigger: redactor.redact(a.trigger, counts),
        captured_at: at,
      }))
      .filter((a) => a.text !== '');
    const tail = cutFront(redactor.redact(input.streamTail, counts), MAX_STORED_TAIL_CHARS);
    let written = false;
    let kept = false;
    const record = (before: CaptureRecord | undefined): CaptureRecord => {
      if (before && input.keep?.(before)) {
        kept = true;
        return before;
      }
      written = true;
      return {
        stream_tail: tail,
        anchors: mergeAnchors(before?.anchors ?? [], added),
        session_key: input.sessionKey,
        session_id: input.sessionId ?? null,
        captured_at: at,
        source: input.source,
        tail_injected: null,
      };
    };
    const sessions = { ...(previous?.sessions ?? {}) };
    if (input.sessionId) sessions[input.sessionId] = record(sessions[input.sessionId]);
    const state: SelfState = { version: 1, ...record(previous), sessions: newestSessions(sessions) };
    if (written) {
      await writeStateFile(file, `${JSON.stringify(state, null, 2)}\n`);
      noteRedactions(dirname(file), 'capture', counts, input.now);
    }
    return backup ? { state, written, kept, backup } : { state, written, kept };
  });
}

/**
 * Runs a read-decide-write cycle on self-state.json under its lock (the clear-after-inject
 * hand-over: two sessions starting at once must not both take the tail).
 */
export async function withSelfState<T>(
  file: string,
  work: (read: ReadResult, write: (state: SelfState) => Promise<void>) => Promise<T>,
): Promise<T> {
  return withFileLock(file, () =>
    work(readSelfState(file), (state) => writeStateFile(file, `${JSON.stringify(state, null, 2)}\n`)),
  );
}

function mergeAnchors(before: readonly Anchor[], added: readonly Anchor[]): Anchor[] {
  const texts = new Set(added.map((a) => a.text));
  const merged = [...before.filter((a) => !texts.has(a.text)), ...dedupe(added)];
  return merged.slice(-MAX_STORED_ANCHORS);
}

/** Later duplicates win (they are the newer mention). */
function dedupe(anchors: readonly Anchor[]): Anchor[] {
  const seen = new Set<string>();
  const out: Anchor[] = [];
  for (let i = anchors.length - 1; i >= 0; i--) {
    const a = anchors[i]!;
    if (seen.has(a.text)) continue;
    seen.add(a.text);
    out.unshift(a);
  }
  return out;
}

function newestSessions(sessions: Record<string, CaptureRecord>): Record<string, CaptureRecord> {
  const entries = Object.entries(sessions).sort(([, a], [, b]) => byCodeUnit(a.captured_at, b.captured_at));
  return Object.fromEntries(entries.slice(-MAX_STORED_SESSIONS));
}

/** Keeps the last `maxChars` characters, starting at a word boundary (the newest words survive). */
export function cutFront(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const kept = text.slice(text.length - maxChars);
  const boundary = kept.search(/\s/);
  // Drop the partial first word, unless the text has no whitespace to cut at.
  return boundary >= 0 && boundary < kept.length - 1 ? kept.slice(boundary).trimStart() : kept;
}
