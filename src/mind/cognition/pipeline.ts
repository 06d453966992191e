import { contentTerms, homePaths, SystemError } from '../../core/index.js';
import type { MemoryScope, MemoryStore, RecallHit, RecallIndex } from '../memory/index.js';
import {
  CLIP,
  clip,
  EXPECTATION_TTL_MS,
  eventId,
  hash,
  type PredictionError,
  pendingExpectations,
  predictionError,
  stableJson,
  textOf,
  updateSurprises,
} from '../observation/index.js';
import { appendEvent, type CognitionEvent } from './events.js';
import { type CautionaryFlag, cautionaryFlags } from './flags.js';

export const REFLECT_KINDS = ['user_said', 'time_passed', 'ambient', 'internal'] as const;
export type ReflectKind = (typeof REFLECT_KINDS)[number];

export interface ObserveInput {
  tool_name: string;
  args?: unknown;
  result?: unknown;
  expected?: string | undefined;
}

export interface ReflectInput {
  observation: string;
  kind: ReflectKind;
  /** The observations (event ids) this reflection draws on; cited surprises leave the packet's list. */
  cites?: string[] | undefined;
}

export interface CognitionResult {
  event_id: string;
  relevant: RecallHit[];
  cautionary_flags: CautionaryFlag[];
  /** Divergence of result from the before-call `expected` (0 as expected … 1 contradicted); null without both. */
  prediction_error: number | null;
  prediction_error_detail: PredictionError | null;
  /** The before-call observe whose `expected` was compared, when it was a separate call. */
  expectation_event_id: string | null;
  /** Memory files that could not be searched (reported, never fatal). */
  skipped_memories: number;
}

export interface CognitionDeps {
  home: string;
  store: MemoryStore;
  recall: RecallIndex;
  clock: () => Date;
  /** Which memories are relevant: the mind's project's and the global ones (every memory when omitted). */
  scope?: () => MemoryScope;
}

const RELEVANT_K = 3;

interface Pending {
  id: string;
  session: string;
  tool: string;
  argsHash: string;
  expected: string;
  at: number;
}

/**
 * observe and reflect share one pipeline: append an event to events/YYYY-MM-DD.jsonl, recall
 * memories relevant to it, raise cautionary flags, and (for an observed result) compute the
 * prediction error against the expectation given before the call, in this call or an earlier one.
 */
export class Cognition {
  private readonly deps: CognitionDeps;
  private readonly eventsDir: string;
  private pending: Pending[] = [];

  constructor(deps: CognitionDeps) {
    this.deps = deps;
    this.eventsDir = homePaths(deps.home).events;
  }

  observe(input: ObserveInput, session: string): CognitionResult {
    const now = this.deps.clock();
    const argsText = clip(stableJson(input.args ?? {}), CLIP.args);
    const argsHash = hash(argsText);
    const resultText = input.result === undefined ? undefined : clip(textOf(input.result), CLIP.result);
    const expectedNow = input.expected?.trim() ? clip(input.expected.trim(), CLIP.expected) : undefined;
    const id = eventId(now);
    let expectation: { id: string | null; expected: string } | undefined;
    if (resultText !== undefined) {
      if (expectedNow) expectation = { id: null, expected: expectedNow };
      else expectation = this.takeExpectation(session, input.tool_name, argsHash, now);
    }
    const detail =
      expectation && resultText !== undefined ? predictionError(expectation.expected, resultText) : null;
    const event: CognitionEvent = {
      id,
      ts: now.toISOString(),
      kind: 'observe',
      session,
      tool_name: input.tool_name,
      args: argsText,
      args_hash: argsHash,
      ...(expectedNow ? { expected: expectedNow } : {}),
      ...(resultText !== undefined ? { result: resultText } : {}),
      ...(detail ? { prediction_error: detail.value } : {}),
      ...(expectation?.id ? { expectation_of: expectation.id } : {}),
    };
    appendEvent(this.eventsDir, event, now);
    if (expectedNow && resultText === undefined) {
      this.pending.push({
        id,
        session,
        tool: input.tool_name,
        argsHash,
        expected: expectedNow,
        at: now.getTime(),
      });
      if (this.pending.length > 200) this.pending.shift();
    }
    const query = [splitIdentifier(input.tool_name), clip(valuesOf(input.args), 600), expectedNow ?? '']
      .join(' ')
      .trim();
    return {
      event_id: id,
      ...this.relevance(query, input.tool_name, input.args),
      prediction_error: detail?.value ?? null,
      prediction_error_detail: detail,
      expectation_event_id: expectation?.id ?? null,
    };
  }

  async reflect(input: ReflectInput, session: string): Promise<CognitionResult> {
    const now = this.deps.clock();
    const id = eventId(now);
    const cites = [...new Set(input.cites ?? [])];
    appendEvent(
      this.eventsDir,
      {
        id,
        ts: now.toISOString(),
        kind: 'reflect',
        session,
        reflect_kind: input.kind,
        observation: clip(input.observation, CLIP.observation),
        ...(cites.length > 0 ? { cites } : {}),
      },
      now,
    );
    if (cites.length > 0) await updateSurprises(this.deps.home, { drop: cites }, now);
    return {
      event_id: id,
      ...this.relevance(clip(input.observation, 1000), undefined),
      prediction_error: null,
      prediction_error_detail: null,
      expectation_event_id: null,
    };
  }

  private relevance(
    query: string,
    toolName: string | undefined,
    args?: unknown,
  ): Pick<CognitionResult, 'relevant' | 'cautionary_flags' | 'skipped_memories'> {
    const scope: MemoryScope = this.deps.scope ? this.deps.scope() : 'all';
    const found = this.deps.recall.recall(query || toolName || '', { k: RELEVANT_K, scope });
    const snapshot = this.deps.store.snapshot();
    const flags = cautionaryFlags({
      snapshot,
      scope,
      ...(toolName ? { toolName, args } : {}),
      hits: found.results,
      queryTermCount: new Set(contentTerms(query)).size,
    });
    return { relevant: found.results, cautionary_flags: flags, skipped_memories: found.skipped.length };
  }

  /**
   * The newest unanswered expectation for this tool: same session and args first, then same
   * session and tool; from this process's memory, else from the tail of the event files of the
   * last EXPECTATION_TTL_MS (the before-call observe may have gone through another process).
   */
  private takeExpectation(
    session: string,
    tool: string,
    argsHash: string,
    now: Date,
  ): { id: string; expected: string } | undefined {
    const fresh = (at: number) => now.getTime() - at <= EXPECTATION_TTL_MS;
    const pick = (list: Pending[]) =>
      [...list].reverse().find((p) => p.session === session && p.tool === tool && p.argsHash === argsHash) ??
      [...list].reverse().find((p) => p.session === session && p.tool === tool);
    this.pending = this.pending.filter((p) => fresh(p.at));
    const local = pick(this.pending);
    if (local) {
      this.pending = this.pending.filter((p) => p !== local);
      return { id: local.id, expected: local.expected };
    }
    // The expectation may sit in yesterday's (UTC) file when the call straddles midnight; a
    // hook's answer to it does not count as the agent's.
    let candidates: Pending[];
    try {
      candidates = pendingExpectations(this.eventsDir, now, 'tool');
    } catch (error) {
      const { code } = error as NodeJS.ErrnoException;
      throw new SystemError(
        `could not read cognition events from ${this.eventsDir}: ${(error as Error).message}`,
        {
          code: 'EVENTS_UNREADABLE',
          hint: `make the day files in ${this.eventsDir} readable by this user${code ? ` (${code})` : ''}`,
          cause: error,
        },
      );
    }
    const found = pick(candidates);
    return found ? { id: found.id, expected: found.expected } : undefined;
  }
}

/** The string and number leaves of args, for the relevance query. */
function valuesOf(value: unknown): string {
  const out: string[] = [];
  const walk = (v: unknown, depth: number) => {
    if (depth > 4 || out.length > 50) return;
    if (typeof v === 'string' || typeof v === 'number') out.push(String(v));
    else if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (v && typeof v === 'object') for (const x of Object.values(v)) walk(x, depth + 1);
  };
  walk(value, 0);
  return out.join(' ');
}

/** `git_push`, `mcp__github__create_pr`, `readFile` -> words. */
function splitIdentifier(name: string): string {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .trim();
}
