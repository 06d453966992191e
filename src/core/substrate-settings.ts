import * as z from 'zod';

/**
 * `substrates:` in `firstlight.yaml`: the default substrate and each substrate's model, base
 * URL, key variable, retries and pricing. Keys are never stored here, only the name of the
 * environment variable that holds one.
 */
const pricing = z
  .object({
    /** Dollars per million input tokens. */
    input_per_mtok: z.number().nonnegative(),
    /** Dollars per million output tokens. */
    output_per_mtok: z.number().nonnegative(),
  })
  .strict();

const api = {
  /** The model; `--substrate KIND:MODEL` overrides it. */
  model: z.string().min(1).optional(),
  /** The API's base URL; overrides the environment's (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`). */
  base_url: z.string().url('must be a URL such as http://127.0.0.1:11434/v1').optional(),
  /** The environment variable holding the key. */
  api_key_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name such as ANTHROPIC_API_KEY')
    .optional(),
  /** Output tokens per model call. */
  max_output_tokens: z.number().int().min(1).max(1_000_000).default(8192),
  pricing: pricing.optional(),
};

const cli = {
  /** The executable (a name on PATH or a path). */
  command: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
};

export const substrateSettingsSchema = z
  .object({
    /** The substrate an invocation uses when neither it nor its profile names one (`kind[:model]`). */
    default: z.string().min(1).optional(),
    retry: z
      .object({
        max_attempts: z.number().int().min(1).max(20).default(5),
        base_delay_ms: z.number().int().min(0).max(60_000).default(1000),
        max_delay_ms: z.number().int().min(0).max(600_000).default(30_000),
      })
      .strict()
      .prefault({}),
    anthropic: z.object(api).strict().prefault({}),
    openai_compatible: z
      .object({ ...api, api: z.enum(['chat', 'responses']).default('chat') })
      .strict()
      .prefault({}),
    claude_cli: z.object(cli).strict().prefault({}),
    codex_cli: z.object(cli).strict().prefault({}),
    gemini_cli: z.object(cli).strict().prefault({}),
    /**
     * The OS sandbox agent CLIs run read-only sessions in: bubblewrap's executable (a name on
     * PATH or a path), default `bwrap`.
     */
    sandbox: z
      .object({ command: z.string().min(1).optional() })
      .strict()
      .prefault({}),
    /** `command`: the argv of any CLI that reads a prompt on stdin and answers on stdout. */
    command: z
      .object({ argv: z.array(z.string().min(1)).min(1).optional() })
      .strict()
      .prefault({}),
  })
  .strict();

export type SubstrateSettings = z.infer<typeof substrateSettingsSchema>;
