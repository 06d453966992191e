import * as z from 'zod';
import { defineTool, type Tool } from '../core/index.js';
import { DEFAULT_TRIGGER, internalize, MAX_ANCHOR_CHARS, MAX_TAIL_INPUT_CHARS } from './capture.js';

export interface InternalizeToolDeps {
  home: string;
  clock: () => Date;
  /** Keys the capture when the caller gives no session id (one per connection). */
  sessionKey: string;
}

const anchorInput = z.union([
  z.string().min(1).max(MAX_ANCHOR_CHARS),
  z.object({
    text: z.string().min(1).max(MAX_ANCHOR_CHARS).describe('The phrase, verbatim.'),
    trigger: z
      .string()
      .max(40)
      .optional()
      .describe(
        `Why it matters: resonance (default), decision, insight, correction, user_said, or your own word.`,
      ),
  }),
]);

/** The `internalize` tool of the `firstlight` server. */
export function internalizeTool(deps: InternalizeToolDeps): Tool {
  const spec = defineTool({
    name: 'internalize',
    title: 'Internalize (what to wake up with)',
    description:
      'Before the session ends, or when a thought is still in motion: store your stream tail (the last ~100 tokens of your own thinking, verbatim, mid-sentence is fine; never a summary) and anchors (short verbatim phrases that landed). The next session starts by reading them first. The tail replaces the previous one (the end-of-turn hook keeps it until the user speaks again); anchors accumulate and the newest five are shown.',
    input: {
      stream_tail: z
        .string()
        .max(MAX_TAIL_INPUT_CHARS)
        .describe('Your own last words, verbatim: the thought that was still in motion.'),
      anchors: z
        .array(anchorInput)
        .max(20)
        .default([])
        .describe(
          `Verbatim phrases to keep, as strings or {text, trigger}; trigger defaults to "${DEFAULT_TRIGGER}".`,
        ),
      session_id: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .describe(
          'The host session id, if known (the bootstrap text shows it as bootstrap_session(session_id: "…")). Keys per-session resumption, and marks the tail as this session\'s so the end-of-turn hook keeps it.',
        ),
    },
    output: {
      stored: z.literal(true),
      session_key: z.string(),
      captured_at: z.string(),
      stream_tail_chars: z.number().int(),
      anchors_stored: z.number().int(),
      anchors_next: z.array(z.object({ text: z.string(), trigger: z.string() })),
      warnings: z.array(z.string()),
    },
    // Replaces the previous tail (an overwrite), and repeating the same call changes nothing more.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    handler: async ({ stream_tail, anchors, session_id }) =>
      internalize({
        home: deps.home,
        streamTail: stream_tail,
        anchors,
        sessionId: session_id ?? null,
        fallbackKey: deps.sessionKey,
        now: deps.clock(),
      }),
  });
  return spec;
}
