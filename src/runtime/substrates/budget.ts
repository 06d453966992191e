/**
 * One invocation's budget as a substrate spends it: model turns, tokens (input plus output over
 * the whole session) and wall time. Running past any of them ends the session with the named
 * failure `budget_exhausted`; the caller's own abort is `aborted`.
 */
import { costOf, type Pricing } from './options.js';
import type { Budget, SubstrateEvent, SubstrateFailureCode, SubstrateResult, Usage } from './types.js';

export class BudgetMeter {
  turns = 0;
  inputTokens = 0;
  outputTokens = 0;
  costUsd: number | undefined;
  readonly started = performance.now();
  /** Aborts on the caller's signal or when the wall time runs out. */
  readonly signal: AbortSignal;
  private readonly wallTimer: AbortController;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly budget: Budget,
    readonly callerSignal: AbortSignal,
  ) {
    this.wallTimer = new AbortController();
    if (budget.wallTimeMs !== undefined) {
      this.timer = setTimeout(
        () => this.wallTimer.abort(new Error(`wall time of ${budget.wallTimeMs} ms used up`)),
        budget.wallTimeMs,
      );
      this.timer.unref();
    }
    this.signal = AbortSignal.any([callerSignal, this.wallTimer.signal]);
  }

  /** Counts one model turn and its tokens (priced when the price is known) and reports them. */
  chargeTurn(tokens: Usage, pricing: Pricing | undefined, onEvent: (event: SubstrateEvent) => void): void {
    this.turns++;
    const cost = costOf(pricing, tokens.inputTokens, tokens.outputTokens);
    const usage = cost === undefined ? tokens : { ...tokens, costUsd: cost };
    this.add(usage);
    onEvent({ type: 'usage', ...usage });
  }

  add(usage: Usage): void {
    this.inputTokens += usage.inputTokens;
    this.outputTokens += usage.outputTokens;
    if (usage.costUsd !== undefined) this.costUsd = (this.costUsd ?? 0) + usage.costUsd;
  }

  get usage(): Usage {
    return {
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      ...(this.costUsd !== undefined ? { costUsd: this.costUsd } : {}),
    };
  }

  /** Why no further model turn may start, or null. */
  exhausted(): string | null {
    if (this.wallTimer.signal.aborted) return `wall time of ${this.budget.wallTimeMs} ms used up`;
    if (this.turns >= this.budget.maxTurns) return `all ${this.budget.maxTurns} turn(s) used`;
    const max = this.budget.maxTokens;
    if (max !== undefined && this.inputTokens + this.outputTokens >= max)
      return `token budget used up (${this.inputTokens + this.outputTokens} of ${max})`;
    return null;
  }

  /** Why the session stopped when `signal` aborted: the wall time or the caller. */
  abortFailure(): { code: SubstrateFailureCode; message: string } {
    if (this.wallTimer.signal.aborted)
      return { code: 'budget_exhausted', message: `wall time of ${this.budget.wallTimeMs} ms used up` };
    return { code: 'aborted', message: 'the invocation was aborted' };
  }

  get elapsedMs(): number {
    return performance.now() - this.started;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
  }

  /** The final result, completed or failed, with everything spent so far. */
  result(
    text: string,
    failure?: { code: SubstrateFailureCode; message: string },
    permissionDenials: SubstrateResult['permissionDenials'] = [],
  ): SubstrateResult {
    this.dispose();
    return {
      status: failure ? 'failed' : 'completed',
      text,
      usage: this.usage,
      turns: this.turns,
      permissionDenials,
      ...(failure ? { failure } : {}),
      substrateMs: this.elapsedMs,
    };
  }
}

/** A result for a session that never started (a missing key, a missing binary). */
export function unavailable(message: string): SubstrateResult {
  return {
    status: 'failed',
    text: '',
    usage: { inputTokens: 0, outputTokens: 0 },
    turns: 0,
    permissionDenials: [],
    failure: { code: 'substrate_unavailable', message },
    substrateMs: 0,
  };
}
