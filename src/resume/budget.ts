import { renderResumption } from './render.js';
import { cutFront } from './self-state.js';

/** Anchors injected: the newest five. */
export const INJECTED_ANCHORS = 5;
/** Room kept for the age phrase ("12 minutes ago") the renderer may add. */
const AGE_SLACK_CHARS = 24;
/** Anchors give way before the tail gets less than this (about 100 tokens). */
const TAIL_FLOOR_CHARS = 400;
/** Matches core's estimateTokens (about four characters a token). */
const CHARS_PER_TOKEN = 4;

export interface Fitted<A> {
  tail: string;
  anchors: A[];
  /** The tail was cut from the front. */
  trimmed: boolean;
}

/**
 * Fits the tail and the newest anchors into `maxTokens` of rendered section. The framing and
 * anchors are measured by rendering them; the tail gets the rest, cut from the FRONT so the
 * newest words (where the thought was going) survive. Anchors are never cut mid-phrase: the
 * oldest are dropped first when the tail would otherwise fall under about 100 tokens.
 */
export function fitToBudget<A extends { text: string }>(
  tail: string,
  anchors: readonly A[],
  maxTokens: number,
): Fitted<A> {
  const budgetChars = maxTokens * CHARS_PER_TOKEN - AGE_SLACK_CHARS;
  let kept = anchors.slice(-INJECTED_ANCHORS);
  const hasTail = tail.trim() !== '';
  let room = 0;
  for (;;) {
    // A one-character placeholder tail measures the framing around it (plus the "…").
    const framing = renderResumption({ stream_tail: hasTail ? 'x' : '', anchors: kept, trimmed: true });
    room = budgetChars - framing.length + (hasTail ? 2 : 0);
    const need = hasTail ? Math.min(tail.length, TAIL_FLOOR_CHARS) : 0;
    if (kept.length === 0 || room >= need) break;
    kept = kept.slice(1);
  }
  if (!hasTail || tail.length <= room) return { tail, anchors: kept, trimmed: false };
  return { tail: cutFront(tail, Math.max(0, room)), anchors: kept, trimmed: true };
}
