import { existsSync } from 'node:fs';
import { homePaths, UserError } from '../core/index.js';
import {
  type CaptureRecord,
  captureSelfState,
  isDeliberate,
  type SelfState,
  type TranscriptSource,
} from './self-state.js';
import { type ExtractOptions, extractTranscriptTail, type TranscriptTail } from './transcript.js';
import type { TranscriptFormat } from './transcripts/index.js';

/** Longest accepted anchor: an anchor is a phrase, not a paragraph. */
export const MAX_ANCHOR_CHARS = 500;
/** Longest accepted tail argument (the stored tail keeps the newest 16,000 characters). */
export const MAX_TAIL_INPUT_CHARS = 100_000;
/** Trigger used when an anchor comes without one. */
export const DEFAULT_TRIGGER = 'resonance';

export interface InternalizeInput {
  home: string;
  streamTail: string;
  anchors?: readonly (string | { text: string; trigger?: string | undefined })[];
  /** The host session id, if known. */
  sessionId?: string | null;
  /** Who is capturing when there is no session id (an MCP connection, `cli`); default `library`. */
  fallbackKey?: string;
  source?: string;
  now?: Date;
  /**
   * How the caller spells the two inputs in its errors: the tool's `stream_tail` and `anchors`
   * (the default), or the CLI's `--tail` and `--anchor`.
   */
  fieldNames?: { tail: string; anchor: string };
}

/** The tool's argument names, which errors name by default. */
const TOOL_FIELDS = { tail: 'stream_tail', anchor: 'anchors' } as const;

/** What `internalize` reports back. */
export interface InternalizeResult {
  stored: true;
  session_key: string;
  captured_at: string;
  stream_tail_chars: number;
  anchors_stored: number;
  /** The anchors the next wake-up will see (the newest five), oldest first. */
  anchors_next: { text: string; trigger: string }[];
  warnings: string[];
}

/**
 * Stores the agent's stream tail and anchors, verbatim. The tail replaces the previous one;
 * anchors accumulate (the newest five are injected).
 */
export async function internalize(input: InternalizeInput): Promise<InternalizeResult> {
  const anchors = (input.anchors ?? [])
    .map((a) => (typeof a === 'string' ? { text: a, trigger: DEFAULT_TRIGGER } : a))
    .map((a) => ({ text: a.text.trim(), trigger: a.trigger?.trim() || DEFAULT_TRIGGER }))
    .filter((a) => a.text !== '');
  validate(input.streamTail, anchors, input.fieldNames ?? TOOL_FIELDS);
  const sessionKey = input.sessionId || input.fallbackKey || 'library';
  const { state, backup } = await captureSelfState(homePaths(input.home).selfState, {
    streamTail: input.streamTail,
    anchors,
    sessionKey,
    sessionId: input.sessionId ?? null,
    source: input.source ?? 'internalize',
    now: input.now ?? new Date(),
  });
  return {
    stored: true,
    session_key: sessionKey,
    captured_at: state.captured_at,
    stream_tail_chars: state.stream_tail.length,
    anchors_stored: state.anchors.length,
    anchors_next: state.anchors.slice(-5).map((a) => ({ text: a.text, trigger: a.trigger })),
    warnings: backup ? [`self-state.json was malformed; kept it as ${backup} and started fresh`] : [],
  };
}

function validate(
  tail: string,
  anchors: readonly { text: string }[],
  names: { tail: string; anchor: string },
): void {
  if (tail.trim() === '' && anchors.length === 0) {
    throw new UserError(`nothing to internalize: ${names.tail} is empty and no ${names.anchor} given`, {
      code: 'INVALID_ARGUMENT',
      hint: `pass ${names.tail} (your last words, verbatim) and/or at least one ${names.anchor}`,
    });
  }
  if (tail.length > MAX_TAIL_INPUT_CHARS) {
    throw new UserError(`${names.tail} is ${tail.length} characters; at most ${MAX_TAIL_INPUT_CHARS}`, {
      code: 'INVALID_ARGUMENT',
      hint: `pass only the last ~100 tokens of your thought as ${names.tail}`,
    });
  }
  const long = anchors.find((a) => a.text.length > MAX_ANCHOR_CHARS);
  if (long) {
    throw new UserError(
      `an anchor (${names.anchor}) is ${long.text.length} characters; at most ${MAX_ANCHOR_CHARS}`,
      {
        code: 'INVALID_ARGUMENT',
        hint: `anchors are short verbatim phrases: shorten "${long.text.slice(0, 40)}…"`,
      },
    );
  }
}

export interface TranscriptCaptureInput {
  home: string;
  /** `transcript_path` from the hook input. */
  transcriptPath?: string | null;
  /** The host's transcript format (Claude Code's, Codex CLI's rollout, Gemini CLI's chat file). Default `claude`. */
  format?: TranscriptFormat;
  /** `session_id` from the hook input. */
  sessionId?: string | null;
  /** Stop's `last_assistant_message`: covers a transcript that lags behind the hook. */
  lastAssistantMessage?: string | null;
  source: TranscriptSource;
  now: Date;
  extract?: ExtractOptions;
}

export type TranscriptCaptureResult =
  | {
      captured: true;
      state: SelfState;
      extracted: TranscriptTail | null;
      /** A deliberate tail was kept in one record (the other took the capture). */
      kept_deliberate: boolean;
    }
  | { captured: false; reason: string };

/**
 * For the Stop and PreCompact hooks: extracts the last assistant words from the transcript
 * (or Stop's `last_assistant_message` when the transcript is missing or behind) and stores
 * them as the stream tail. Anchors are left as they are: only the agent chooses anchors.
 *
 * A tail the agent internalized itself is not replaced by the words that followed it in the
 * same turn (Stop runs after every turn, so the turn that called `internalize` would otherwise
 * end by overwriting it with "Saved my thoughts. Anything else?"). See {@link keepsDeliberateTail}.
 * Never throws for an unreadable transcript (a hook must not break the session).
 */
export async function captureFromTranscript(input: TranscriptCaptureInput): Promise<TranscriptCaptureResult> {
  let extracted: TranscriptTail | null = null;
  let problem: string | undefined;
  if (input.transcriptPath && existsSync(input.transcriptPath)) {
    try {
      extracted = extractTranscriptTail(input.transcriptPath, {
        ...input.extract,
        ...(input.format ? { format: input.format } : {}),
      });
    } catch (error) {
      problem = `transcript unreadable: ${(error as Error).message}`;
    }
  } else {
    problem = input.transcriptPath ? `no transcript at ${input.transcriptPath}` : 'no transcript_path given';
  }
  let tail = extracted?.stream_tail ?? '';
  const last = input.lastAssistantMessage?.trim();
  // Compared with whitespace collapsed: Gemini CLI's prompt_response joins a turn's texts with
  // one newline where the transcript tail has two, and the words were stored twice.
  const squash = (text: string) => text.replace(/\s+/g, ' ');
  if (last && !squash(tail).includes(squash(last))) tail = tail ? `${tail}\n\n${last}` : last;
  if (tail.trim() === '')
    return { captured: false, reason: problem ?? 'no assistant words in the transcript' };
  const sessionId = input.sessionId ?? extracted?.session_id ?? null;
  const { state, written, kept } = await captureSelfState(homePaths(input.home).selfState, {
    streamTail: tail,
    sessionKey: sessionId ?? input.source,
    sessionId,
    source: input.source,
    now: input.now,
    keep: (record) => keepsDeliberateTail(record, sessionId, extracted),
  });
  if (!written) {
    return {
      captured: false,
      reason: `kept the tail internalized at ${state.captured_at}: the user has not spoken since`,
    };
  }
  return { captured: true, state, extracted, kept_deliberate: kept };
}

/**
 * The rule: a transcript capture leaves a record alone when its tail is deliberate (stored by
 * `internalize`), from this session (the same session id, or none given), and the user has
 * not sent a prompt since it was stored (the transcript's line timestamps say so). The next
 * user turn's Stop replaces it as usual. When the transcript cannot tell (no transcript, no
 * timestamps, a scan that stopped before reaching the internalize call), the newest capture
 * wins, as it always did: a deliberate tail must not stick for the rest of a session.
 */
function keepsDeliberateTail(
  record: CaptureRecord,
  sessionId: string | null,
  extracted: TranscriptTail | null,
): boolean {
  if (!isDeliberate(record) || record.stream_tail.trim() === '') return false;
  if (record.session_id !== null && sessionId !== null && record.session_id !== sessionId) return false;
  return promptedSince(extracted, record.captured_at) === false;
}

/** Did the user send a prompt after `since`? Null when the transcript cannot tell. */
function promptedSince(extracted: TranscriptTail | null, since: string): boolean | null {
  const at = Date.parse(since);
  if (!extracted || !Number.isFinite(at)) return null;
  // The scan read back past the capture before meeting a prompt (a long turn can stop it early).
  if (extracted.no_prompt_since !== null && Date.parse(extracted.no_prompt_since) <= at) return false;
  if (extracted.last_prompt_at !== null) return Date.parse(extracted.last_prompt_at) > at;
  return null;
}
