import { renderResumption } from './render.js';
import { cutFront } from './self-state.js';

/** Anchors injected: the newest five. */
export const INJECTED_ANCHORS = 5;
/** Room kept for the age phrase the renderer may add (" 59 minutes ago" is the longest usual one). */
const AGE_SLACK_CHARS = 16;
/** Matches core's estimateTokens (about four characters a token). */
const CHARS_PER_TOKEN = 4;
/**
 * The seed's split of its ~300 tokens: the tail ~100 (a third), five anchors ~150 (a half), the
 * framing the rest. The tail never takes more than its third, however short the anchors are: it
 * is a last thought, not a transcript. Anchors give way, oldest first, only when the tail would
 * get less than a sixth (~50 tokens at 300).
 */
const TAIL_SHARE = 1 / 3;
const TAIL_FLOOR_SHARE = 1 / 6;

export interface Fitted<A> {
  tail: string;
  anchors: A[];
  /** The tail was cut from the front. */
  trimmed: boolean;
}

/**
 * Fits the tail and the newest anchors into `maxTokens` of rendered section. The framing and
 * anchors are measured by rendering them; the tail gets what is left, up to its share, cut from
 * the FRONT so the newest words (where the thought was going) survive. Anchors are never cut
 * mid-phrase.
 */
export function fitToBudget<A extends { text: string }>(
  tail: string,
  anchors: readonly A[],
  maxTokens: number,
): Fitted<A> {
  const budgetChars = maxTokens * CHARS_PER_TOKEN;
  const hasTail = tail.trim() !== '';
  const floor = hasTail ? Math.min(tail.length, Math.floor(budgetChars * TAIL_FLOOR_SHARE)) : 0;
  let kept = anchors.slice(-INJECTED_ANCHORS);
  let room = 0;
  for (;;) {
    // A one-character placeholder tail measures the framing around it (plus the "…").
    const framing = renderResumption({ stream_tail: hasTail ? 'x' : '', anchors: kept, trimmed: true });
    room = budgetChars - AGE_SLACK_CHARS - framing.length + (hasTail ? 2 : 0);
    if (kept.length === 0 || room >= floor) break;
    kept = kept.slice(1);
  }
  const tailRoom = Math.max(0, Math.min(room, Math.floor(budgetChars * TAIL_SHARE)));
  if (!hasTail || tail.length <= tailRoom) return { tail, anchors: kept, trimmed: false };
  return { tail: cutFront(tail, tailRoom), anchors: kept, trimmed: true };
}
