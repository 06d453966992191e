import { join } from 'node:path';
import { hookObservation } from './denied.js';
import { argsDigest, CLIP, clip, textOf } from './digest.js';
import { appendEvent, type CognitionEvent } from './events.js';
import { pendingExpectations, pickExpectation } from './pairing.js';
import { type PredictionError, predictionError, STOP_LINE } from './prediction-error.js';

/** A host tool call as a PostToolUse hook reports it. */
export interface HookCall {
  host: string;
  session: string | null;
  tool: string;
  args: unknown;
  response: unknown;
  error: string | null;
  durationMs: number | null;
  toolUseId: string | null;
}

/** What recording a call found: the event, and the expectation it answered, if any. */
export interface RecordedCall {
  event: CognitionEvent;
  expected: string | null;
  outcome: string;
  detail: PredictionError | null;
  /** The prediction error is above the protocol's stop line. */
  surprise: boolean;
}

/**
 * A tool's response as text: Copilot's `textResultForLlm`, Gemini's `llmContent`, a shell's
 * stdout and stderr, MCP content blocks, else JSON.
 */
export function responseText(response: unknown): string {
  if (response === null || response === undefined) return '';
  if (typeof response === 'string') return response;
  if (typeof response !== 'object') return String(response);
  const r = response as Record<string, unknown>;
  for (const key of ['textResultForLlm', 'text_result_for_llm'])
    if (typeof r[key] === 'string') return r[key] as string;
  if ('llmContent' in r) {
    const c = r.llmContent;
    if (typeof c === 'string') return c;
    if (Array.isArray(c))
      return c
        .map((p) => (p as { text?: unknown })?.text)
        .filter((t) => typeof t === 'string')
        .join('\n');
  }
  if (typeof r.stdout === 'string' || typeof r.stderr === 'string') {
    return [r.stdout, r.stderr].filter((t) => typeof t === 'string' && t !== '').join('\n');
  }
  return textOf(response);
}

/**
 * Records one host tool call in the same event store `observe` writes (`source: hook`), paired
 * with the agent's `observe(expected=…)` for that call when there is one (see pickExpectation),
 * whose prediction error it records. One O_APPEND write; throws when the store is unusable (the
 * hook turns that into a note: observation fails open).
 */
export function recordHookCall(home: string, call: HookCall, now: Date): RecordedCall {
  const eventsDir = join(home, 'events');
  const digest = argsDigest(call.args);
  const text = responseText(call.response);
  const outcome = call.error ? `error: ${call.error}${text && text !== call.error ? `\n${text}` : ''}` : text;
  let expectation: { id: string; expected: string } | undefined;
  try {
    expectation = pickExpectation(pendingExpectations(eventsDir, now, 'hook'), {
      session: call.session ?? '',
      tool: call.tool,
      argsHash: digest.args_hash,
      args: call.args,
      now,
      by: 'hook',
    });
  } catch {
    // an unreadable day file: the call is still recorded, unpaired
  }
  const clipped = clip(outcome, CLIP.result);
  const detail = expectation ? predictionError(expectation.expected, clipped) : null;
  const event: CognitionEvent = {
    ...hookObservation(call, now),
    ...digest,
    result: clipped,
    outcome: call.error ? 'error' : 'ok',
    ...(call.error ? { error: clip(call.error, CLIP.error) } : {}),
    ...(call.durationMs !== null ? { duration_ms: Math.round(call.durationMs) } : {}),
    ...(detail ? { prediction_error: detail.value } : {}),
    ...(expectation ? { expectation_of: expectation.id } : {}),
  };
  appendEvent(eventsDir, event, now);
  return {
    event,
    expected: expectation?.expected ?? null,
    outcome: clipped,
    detail,
    surprise: detail !== null && detail.value > STOP_LINE,
  };
}
