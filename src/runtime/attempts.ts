import { redesignFindings } from './detectors.js';
import { missingFields } from './handoffs.js';
import {
  type FailureCode,
  type HandoffKind,
  type Mode,
  PROPOSED_RESOLUTIONS,
  type ProposedResolution,
} from './policy.js';
import type { SurfaceProfile } from './profile.js';
import type {
  Substrate,
  SubstrateMessage,
  SubstrateRequest,
  SubstrateResult,
  Usage,
} from './substrates/types.js';
import { countTokens, extractFencedJson, structuredProblems } from './surfaces.js';
import type { Outcome } from './types.js';

/**
 * The session's attempts: run the substrate, then read what it produced against the surface
 * and the role — a clarifying question, a handoff_insufficient outcome, the density cap, the
 * structured-output contract, the deliverable handoff. Each problem earns a bounded retry with
 * a message saying what to fix (the next run sees its own answer and the correction), then a
 * named failure.
 */

export interface AttemptsInput {
  readonly substrate: Substrate;
  /** The request without its messages (the conversation grows with each retry). */
  readonly request: Omit<SubstrateRequest, 'messages'>;
  /** The conversation so far; retries and a yielded question are appended to it. */
  readonly messages: SubstrateMessage[];
  readonly surfaceProfile: SurfaceProfile | undefined;
  /** The session's mode: a validation session's findings may not propose a redesign. */
  readonly mode: Mode | null;
  /** The handoff kind the role produces, and whether the deliverable must hold it. */
  readonly produces: HandoffKind | null;
  readonly requireHandoff: boolean;
  readonly engagement: 'agent' | 'assistant';
  /** The handoffs the session read, named in a handoff_insufficient outcome. */
  readonly handoffInputs: readonly string[];
}

export interface AttemptsResult {
  readonly attempts: number;
  readonly substrateMs: number;
  readonly usage: Usage;
  readonly failure?: { readonly code: FailureCode; readonly detail: string };
  readonly outcome?: Outcome;
  /** The final prose, without the fenced JSON block. */
  readonly prose: string;
  /** The fenced JSON, parsed. */
  readonly data: unknown;
  readonly handoffContent?: Record<string, unknown>;
  /** The substrate's own refusals over every attempt (an agent CLI's permission denials). */
  readonly permissionDenials: SubstrateResult['permissionDenials'];
}

export async function runAttempts(input: AttemptsInput): Promise<AttemptsResult> {
  const { messages, surfaceProfile, produces } = input;
  const maxRetries = surfaceProfile?.max_retries ?? 2;
  let substrateMs = 0;
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let failure: AttemptsResult['failure'];
  let outcome: Outcome | undefined;
  let prose = '';
  let data: unknown;
  let handoffContent: Record<string, unknown> | undefined;
  let attempts = 0;
  const permissionDenials: SubstrateResult['permissionDenials'][number][] = [];
  for (;;) {
    attempts++;
    let result: SubstrateResult;
    try {
      result = await input.substrate.run({ ...input.request, messages: [...messages] });
    } catch (error) {
      // A substrate that throws instead of reporting a failure still ends the session cleanly.
      failure = { code: 'substrate_error', detail: (error as Error).message };
      break;
    }
    substrateMs += result.substrateMs;
    permissionDenials.push(...result.permissionDenials);
    usage = {
      inputTokens: usage.inputTokens + result.usage.inputTokens,
      outputTokens: usage.outputTokens + result.usage.outputTokens,
      ...(result.usage.costUsd !== undefined || usage.costUsd !== undefined
        ? { costUsd: (usage.costUsd ?? 0) + (result.usage.costUsd ?? 0) }
        : {}),
    };
    if (result.status === 'failed') {
      failure = {
        code: result.failure?.code ?? 'substrate_error',
        detail: result.failure?.message ?? 'the substrate failed',
      };
      break;
    }
    const fenced = extractFencedJson(result.text);
    prose = fenced.value === undefined ? result.text.trim() : fenced.prose;
    data = fenced.value;
    const object =
      data && typeof data === 'object' && !Array.isArray(data)
        ? (data as Record<string, unknown>)
        : undefined;
    const retry = (problem: string): boolean => {
      if (attempts > maxRetries) return false;
      messages.push({ role: 'assistant', content: result.text }, { role: 'user', content: problem });
      return true;
    };
    // A clarifying question: the caller's turn (assistant), or a named failure (agent).
    const question =
      typeof object?.clarifying_question === 'string'
        ? object.clarifying_question
        : fenced.value === undefined && prose.endsWith('?')
          ? prose.split('\n').at(-1)!
          : undefined;
    if (question !== undefined) {
      if (input.engagement === 'agent') {
        failure = { code: 'clarification_required', detail: question };
      } else {
        outcome = { type: 'turn_yielded', question };
        messages.push({ role: 'assistant', content: result.text });
      }
      break;
    }
    const insufficient = object?.outcome as Record<string, unknown> | undefined;
    if (insufficient && insufficient.type === 'handoff_insufficient') {
      const problems = outcomeProblems(insufficient);
      if (problems.length > 0) {
        if (retry(`Your handoff_insufficient outcome is invalid: ${problems.join('; ')}. Emit it again.`))
          continue;
        failure = { code: 'invalid_outcome', detail: `handoff_insufficient: ${problems.join('; ')}` };
        break;
      }
      outcome = {
        type: 'handoff_insufficient',
        missing: (insufficient.missing as unknown[]).map(String),
        proposed_resolution: insufficient.proposed_resolution as ProposedResolution,
        handoffs: input.handoffInputs,
      };
      break;
    }
    const cap = surfaceProfile?.max_tokens_per_emission;
    if (cap !== undefined) {
      // The model's own count when the answer is all prose; else the prose through a BPE tokenizer.
      const reported = fenced.value === undefined ? result.emissionTokens : undefined;
      const tokens = reported ?? (await countTokens(prose));
      if (tokens > cap) {
        if (
          retry(
            `Your emission was ${tokens} tokens; this surface allows ${cap}. Say it again in at most ${cap} tokens.`,
          )
        )
          continue;
        failure = {
          code: 'density_exceeded',
          detail: `${tokens} tokens against a cap of ${cap}, after ${attempts} attempt(s)`,
        };
        break;
      }
    }
    if (surfaceProfile?.structured_output === 'required') {
      const problems =
        fenced.value === undefined
          ? [fenced.problem!]
          : structuredProblems(fenced.value, surfaceProfile.output_schema);
      if (problems.length > 0) {
        if (retry(`Your answer must end with one fenced \`\`\`json block: ${problems.join('; ')}.`)) continue;
        failure = { code: 'structured_output_invalid', detail: problems.join('; ') };
        break;
      }
    }
    const candidate = object?.handoff;
    handoffContent =
      candidate && typeof candidate === 'object' && !Array.isArray(candidate)
        ? (candidate as Record<string, unknown>)
        : undefined;
    if (produces && input.requireHandoff) {
      const missing = handoffContent ? missingFields(produces, handoffContent) : ['handoff'];
      if (missing.length > 0) {
        const problem = handoffContent
          ? `Your ${produces} handoff lacks: ${missing.join(', ')}. Emit it again, complete.`
          : `End with a fenced \`\`\`json block {"handoff": {...}} holding your ${produces} handoff.`;
        if (retry(problem)) continue;
        failure = {
          code: 'deliverable_incomplete',
          detail: `${produces} handoff lacks: ${missing.join(', ')}`,
        };
        break;
      }
    }
    // Validation pretending to plan: a finding that proposes a redesign is flagged and refused.
    const redesigns = input.mode === 'validation' && handoffContent ? redesignFindings(handoffContent) : [];
    if (redesigns.length > 0) {
      const problem = `Findings ${redesigns.join(', ')} propose a redesign. Report the defect each one found in the artifact as built (with a disposition and evidence); reopening the design needs a reversion to planning, not a finding.`;
      if (retry(problem)) continue;
      failure = {
        code: 'redesign_instead_of_finding',
        detail: `findings ${redesigns.join(', ')} propose a redesign instead of reporting a defect`,
      };
      break;
    }
    break;
  }
  return {
    attempts,
    substrateMs,
    usage,
    ...(failure ? { failure } : {}),
    ...(outcome ? { outcome } : {}),
    prose,
    data,
    ...(handoffContent ? { handoffContent } : {}),
    permissionDenials,
  };
}

/** What is wrong with a handoff_insufficient outcome: `missing` a list, the canon's resolutions only. */
function outcomeProblems(outcome: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const missing = outcome.missing;
  if (
    !Array.isArray(missing) ||
    missing.length === 0 ||
    missing.some((m) => typeof m !== 'string' || m.trim() === '')
  )
    problems.push('"missing" must list what the handoff lacks, as strings');
  if (!(PROPOSED_RESOLUTIONS as readonly unknown[]).includes(outcome.proposed_resolution)) {
    problems.push(
      `"proposed_resolution" must be one of ${PROPOSED_RESOLUTIONS.map((r) => `"${r}"`).join(', ')}, not ${JSON.stringify(outcome.proposed_resolution ?? null)}`,
    );
  }
  return problems;
}
