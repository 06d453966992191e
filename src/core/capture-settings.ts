import * as z from 'zod';

/** Default memories one session's capture may write: a few good ones, not a transcript's worth. */
export const DEFAULT_MAX_PER_SESSION = 5;
/** The curator's default budget, in tokens (prompt + answer): small, and stated in docs/capture.md. */
export const DEFAULT_SESSION_TOKENS = 8000;
export const DEFAULT_DAILY_TOKENS = 40000;

const curatorSchema = z
  .object({
    /** `KIND[:MODEL]` of the runtime's substrates (openai-compatible, anthropic, claude-cli, …); absent: no curator. */
    substrate: z.string().min(1).optional(),
    /** Most tokens one session's curation may use (prompt estimate before, reported usage after). */
    session_tokens: z.number().int().min(100).max(1_000_000).default(DEFAULT_SESSION_TOKENS),
    /** Most tokens all curations of one day (UTC) may use together. */
    daily_tokens: z.number().int().min(100).max(100_000_000).default(DEFAULT_DAILY_TOKENS),
  })
  .strict();

/**
 * `capture:` in firstlight.yaml (home or `<project>/.firstlight/firstlight.yaml`): `off` (or
 * `false`) opts out; else `mode` (auto: kept as memories; review: kept as `status: proposed`),
 * `max_per_session`, and the optional `curator`.
 */
export const captureSettingsSchema = z.preprocess(
  (value) => (value === 'off' || value === false ? { mode: 'off' } : value),
  z
    .object({
      mode: z.enum(['auto', 'review', 'off']).default('auto'),
      max_per_session: z.number().int().min(0).max(50).default(DEFAULT_MAX_PER_SESSION),
      curator: curatorSchema.prefault({}),
    })
    .strict(),
);

export type CaptureSettings = z.infer<typeof captureSettingsSchema>;
