/**
 * What a real substrate is built from: the model, where the API lives, which environment
 * variable holds its key, retries, pricing. Resolved from the `--substrate kind[:model]` spec,
 * the environment and `firstlight.yaml` (`substrates:`), in that order of precedence.
 */
import type { RetryPolicy } from './retry.js';

/** Dollars per million tokens, for a result's `costUsd`. */
export interface Pricing {
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
}

export interface ApiSubstrateOptions {
  readonly model: string;
  /** The API's base URL (an OpenAI-compatible one includes its `/v1`). */
  readonly baseUrl: string;
  /** The key, read from `apiKeyEnv`; undefined when that variable is unset. */
  readonly apiKey: string | undefined;
  /** The environment variable the key comes from, named in a missing-key failure. */
  readonly apiKeyEnv: string;
  /** Whether a run without a key is refused (a local OpenAI-compatible server needs none). */
  readonly keyRequired: boolean;
  /** Output tokens per model call (`max_tokens`). */
  readonly maxOutputTokens: number;
  readonly retry: RetryPolicy;
  readonly pricing?: Pricing;
}

/** Cost of a model call, when the price is known. */
export function costOf(pricing: Pricing | undefined, input: number, output: number): number | undefined {
  if (!pricing) return undefined;
  return (input * pricing.inputPerMTok + output * pricing.outputPerMTok) / 1_000_000;
}

/** The failure message of a missing key: the variable and how to set it. */
export function missingKey(kind: string, env: string): string {
  return `${kind}: ${env} is not set; export ${env}=… (or name another variable in firstlight.yaml substrates.${kind.replace('-', '_')}.api_key_env)`;
}
