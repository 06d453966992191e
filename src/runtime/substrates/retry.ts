/**
 * Retrying a model call: which failures are worth another attempt, and how long to wait.
 * Bounded attempts, exponential backoff with full jitter, a server's `retry-after` honoured up
 * to the cap. The API substrates retry whole model calls, so an overload in the middle of a
 * stream is retried the same way as a 529 before it.
 */
import type { SubstrateEvent } from './types.js';

/** HTTP statuses a model API uses for "try again": rate limit, server errors, overloaded. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504, 529]);

/** In-stream error types and codes that mean the same as a retryable status. */
const RETRYABLE_ERROR_TYPES = new Set([
  'overloaded_error',
  'api_error',
  'rate_limit_error',
  'overloaded',
  'server_error',
  'server_is_overloaded',
  'rate_limit_exceeded',
  'UNAVAILABLE',
  'RESOURCE_EXHAUSTED',
  'INTERNAL',
]);

export interface RetryPolicy {
  /** Attempts per model call, the first included. */
  readonly maxAttempts: number;
  /** The first backoff's upper bound; each retry doubles it. */
  readonly baseDelayMs: number;
  /** No wait is longer than this, `retry-after` included. */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 30_000 };

/** A model call that failed, classified. */
export class ModelCallError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly retryable: boolean,
    /** Seconds the server asked to wait (`retry-after`), when it said. */
    readonly retryAfterS?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** An error status from a model API, classified. */
export function statusError(status: number, detail: string, retryAfter?: string | null): ModelCallError {
  const after = retryAfter ? Number(retryAfter) : undefined;
  return new ModelCallError(
    `HTTP ${status}${detail ? `: ${detail}` : ''}`,
    status === 529 ? 'overloaded' : `http_${status}`,
    RETRYABLE_STATUSES.has(status),
    after !== undefined && Number.isFinite(after) ? after : undefined,
  );
}

/** An error event inside a stream, classified by its type or code. */
export function streamError(type: string | undefined, message: string): ModelCallError {
  const t = type ?? 'stream_error';
  return new ModelCallError(`in-stream ${t}: ${message}`, t, RETRYABLE_ERROR_TYPES.has(t));
}

/** The wait before retry number `retry` (1-based): full jitter under an exponential cap. */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(cap * (0.5 + random() / 2));
}

/** Waits, or rejects as soon as the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds, fails for good, or runs out of attempts. `onRetry` hears
 * each failure that will be retried (the substrate reports it as an `error` event with
 * `retrying: true`); the last failure is thrown.
 */
export async function withRetry<T>(
  attempt: (n: number) => Promise<T>,
  options: {
    policy: RetryPolicy;
    signal: AbortSignal;
    classify: (error: unknown) => ModelCallError;
    onRetry: (error: ModelCallError, delayMs: number) => void;
  },
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (options.signal.aborted) throw error;
      const failure = options.classify(error);
      if (!failure.retryable || n >= options.policy.maxAttempts) throw failure;
      const jittered = backoffMs(n, options.policy);
      const delay =
        failure.retryAfterS !== undefined
          ? Math.min(options.policy.maxDelayMs, Math.max(jittered, failure.retryAfterS * 1000))
          : jittered;
      options.onRetry(failure, delay);
      await sleep(delay, options.signal);
    }
  }
}

/** `withRetry`'s onRetry for a substrate: each retried failure as an `error` event with `retrying: true`. */
export const reportRetry =
  (onEvent: (event: SubstrateEvent) => void) =>
  (failure: ModelCallError, delayMs: number): void =>
    onEvent({
      type: 'error',
      code: failure.code,
      message: `${failure.message}; retrying in ${delayMs} ms`,
      retrying: true,
    });
