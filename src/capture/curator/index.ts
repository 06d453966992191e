/**
 * @module capture/curator — stage 2, opt-in: one model call through the runtime's substrates
 * (`capture.curator.substrate`: openai-compatible, anthropic, claude-cli, codex-cli,
 * gemini-cli, command) that reads the session, redacted first, and stage 1's candidates, and
 * answers the contract in contract.ts. The budget is checked before the call from the prompt's
 * size (and the room left for the answer) against `session_tokens` and what today has used of
 * `daily_tokens`, and recorded after from the usage the substrate reports. Over budget: no
 * call, and the report says why. One attempt: no retry, here or in the substrate.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type CaptureSettings, estimateTokens, loadSettings, type Redactor } from '../../core/index.js';
import type { Conversation } from '../conversation.js';
import { type Candidate, clipLine, evidenceOf } from '../extract/candidate.js';
import { captureDir } from '../queue/index.js';
import { addTokens, dayOf, tokensOn } from './budget.js';
import {
  CURATOR_SYSTEM,
  type CuratorAnswer,
  curatorPrompt,
  parseCuratorAnswer,
  sessionLines,
} from './contract.js';

export { tokensOn, usageFile } from './budget.js';
export { CURATOR_SYSTEM, curatorAnswerSchema, parseCuratorAnswer } from './contract.js';

/** What the curator did for one session, as the capture report says it. */
export interface CuratorReport {
  substrate: string;
  status: 'ran' | 'skipped' | 'failed';
  why?: string;
  /** Tokens the prompt and its answer were estimated at before the call. */
  estimate: number;
  /** Tokens used, as reported (null: no call was made). */
  tokens: number | null;
  /** Today's use after this session, and the day's budget. */
  day: { date: string; used: number; budget: number };
}

export interface CuratorOutcome {
  report: CuratorReport;
  /** The curator's memories as candidates (with evidence found in the session); null unless it ran. */
  memories: Candidate[] | null;
  /** Memories it proposed that were dropped, and why. */
  dropped: { what: string; why: string }[];
  digest: string | null;
}

export interface CurateInput {
  home: string;
  cwd: string;
  session: string;
  conversation: Conversation;
  /** Transcript lines already captured: only what follows is sent. */
  since: number;
  candidates: readonly Candidate[];
  settings: CaptureSettings['curator'];
  redactor: Redactor;
  env: NodeJS.ProcessEnv;
  now: Date;
}

/** Tokens kept for the answer, at most (the model is told to stop there). */
const ANSWER_TOKENS = 1500;
/** The least room an answer needs to be worth the call. */
const MIN_ANSWER_TOKENS = 300;
const CALL_TIMEOUT_MS = 180_000;

/** Runs the curator on one session within its budget, or says why not. */
export async function curate(input: CurateInput): Promise<CuratorOutcome> {
  const spec = input.settings.substrate!;
  const date = dayOf(input.now);
  const usedBefore = tokensOn(input.home, date);
  const lines = sessionLines(input.conversation, input.since).map((l) => input.redactor.redact(l, {}));
  const prompt = input.redactor.redact(curatorPrompt(lines, input.candidates), {});
  const promptTokens = estimateTokens(CURATOR_SYSTEM) + estimateTokens(prompt);
  const answerTokens = Math.min(ANSWER_TOKENS, input.settings.session_tokens - promptTokens);
  const estimate = promptTokens + Math.max(answerTokens, MIN_ANSWER_TOKENS);
  const report: CuratorReport = {
    substrate: spec,
    status: 'skipped',
    estimate,
    tokens: null,
    day: { date, used: usedBefore, budget: input.settings.daily_tokens },
  };
  const none = (status: CuratorReport['status'], why: string): CuratorOutcome => ({
    report: { ...report, status, why },
    memories: null,
    dropped: [],
    digest: null,
  });
  if (lines.length === 0) return none('skipped', 'nothing new in the session');
  if (answerTokens < MIN_ANSWER_TOKENS)
    return none(
      'skipped',
      `over capture.curator.session_tokens: the session needs about ${estimate} tokens, the budget is ${input.settings.session_tokens}`,
    );
  if (usedBefore + estimate > input.settings.daily_tokens)
    return none(
      'skipped',
      `over capture.curator.daily_tokens: ${usedBefore} used on ${date}, this session needs about ${estimate}, the budget is ${input.settings.daily_tokens}`,
    );
  let text: string;
  let used: number;
  try {
    const result = await callSubstrate(input, spec, prompt, answerTokens);
    used = result.usage.inputTokens + result.usage.outputTokens || estimate;
    await addTokens(input.home, date, used);
    report.tokens = used;
    report.day.used = usedBefore + used;
    if (result.status !== 'completed')
      return none(
        'failed',
        `${spec}: ${result.failure?.code ?? 'failed'} (${result.failure?.message ?? ''})`,
      );
    text = result.text;
  } catch (error) {
    return none('failed', `${spec}: ${(error as Error).message}`);
  }
  const answer = parseCuratorAnswer(text);
  if (typeof answer === 'string') return none('failed', answer);
  const over =
    used > input.settings.session_tokens
      ? `; it reported ${used} tokens, over session_tokens (${input.settings.session_tokens})`
      : '';
  const { memories, dropped } = asCandidates(answer, lines);
  return {
    report: { ...report, status: 'ran', ...(over ? { why: over.slice(2) } : {}) },
    memories,
    dropped,
    digest: answer.digest?.trim() ? clipLine(input.redactor.redact(answer.digest, {}), 1200) : null,
  };
}

/** One substrate call: no tools, one turn, the answer capped, no retries. */
async function callSubstrate(input: CurateInput, spec: string, prompt: string, answerTokens: number) {
  const { resolveSubstrate } = await import('../../runtime/index.js');
  const loaded = loadSettings(join(input.home, 'firstlight.yaml')).settings;
  const substrates = loaded.substrates;
  // The budget is a promise: one attempt, and the answer capped at the room the budget leaves.
  const settings = {
    substrates: {
      ...substrates,
      retry: { ...substrates.retry, max_attempts: 1 },
      anthropic: { ...substrates.anthropic, max_output_tokens: answerTokens },
      openai_compatible: { ...substrates.openai_compatible, max_output_tokens: answerTokens },
    },
  };
  const substrate = await resolveSubstrate(spec, { cwd: input.cwd, env: input.env, settings });
  let sandbox: { projectDir: string; scratchDir: string; writable: string[] } | undefined;
  if (substrate.sandbox) {
    // An agent CLI runs its own tools: the curator's session may not change the project.
    const missing = await substrate.sandbox.unavailable();
    if (missing) throw new Error(`the curator needs the OS sandbox for ${substrate.kind}: ${missing}`);
    const scratchDir = join(captureDir(input.home), 'curator-scratch');
    mkdirSync(scratchDir, { recursive: true });
    sandbox = { projectDir: input.cwd, scratchDir, writable: [] };
  }
  return substrate.run({
    sessionId: `capture-${input.session}`.slice(0, 120),
    systemPrompt: CURATOR_SYSTEM,
    messages: [{ role: 'user', content: prompt }],
    tools: [],
    removedTools: ['Bash', 'Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'WebFetch', 'WebSearch', 'Task'],
    mcpServers: {},
    executeTool: async (call) => ({
      output: `the curator has no tools (${call.name} refused)`,
      isError: true,
      denied: { reason: 'no tools' },
    }),
    budget: { maxTurns: 1, maxTokens: input.settings.session_tokens },
    ...(sandbox ? { sandbox } : {}),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
    onEvent: () => {},
  });
}

/**
 * The curator's memories as candidates: each keeps only the evidence the session holds (its
 * words found on the line it names, or on any line of the part sent), quoted as stage 1 quotes
 * it; one with none is dropped.
 */
function asCandidates(
  answer: CuratorAnswer,
  sent: readonly string[],
): { memories: Candidate[]; dropped: { what: string; why: string }[] } {
  const byLine = new Map<number, string>();
  for (const s of sent) {
    const m = /^L(\d+) (.*)$/s.exec(s);
    if (m) byLine.set(Number(m[1]), `${byLine.get(Number(m[1])) ?? ''}\n${m[2]!}`);
  }
  const memories: Candidate[] = [];
  const dropped: { what: string; why: string }[] = [];
  for (const m of answer.memories) {
    const evidence = (m.evidence ?? []).map((e) => foundIn(e, byLine)).filter((e): e is string => e !== null);
    if (evidence.length === 0) {
      dropped.push({ what: clipLine(m.name, 80), why: 'curator: no evidence the session holds' });
      continue;
    }
    memories.push({
      kind: 'curator',
      type: m.type,
      name: clipLine(m.name, 100),
      description: clipLine(m.description, 200),
      content: m.content.trim(),
      ...(m.applies_to && m.applies_to.length > 0 ? { applies_to: m.applies_to } : {}),
      evidence: [...new Set(evidence)],
    });
  }
  return { memories, dropped };
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** `L12 words` (or `transcript:L12 "words"`, or bare words): the quote, where the session holds it. */
function foundIn(evidence: string, byLine: ReadonlyMap<number, string>): string | null {
  const m = /^(?:transcript:)?L(\d+)\s*[:\-–]?\s*(.*)$/is.exec(evidence.trim());
  let quote = (m ? m[2]! : evidence).trim();
  if (/^".*"$/s.test(quote)) {
    try {
      quote = String(JSON.parse(quote));
    } catch {
      quote = quote.slice(1, -1);
    }
  }
  const words = norm(quote.replace(/^(?:user|assistant|tool):\s*/i, ''));
  if (words.length < 8) return null;
  const named = m ? Number(m[1]) : undefined;
  const lines = named !== undefined && byLine.has(named) ? [named, ...byLine.keys()] : [...byLine.keys()];
  for (const line of lines) {
    if (norm(byLine.get(line)!).includes(words)) return evidenceOf(line, quote);
  }
  return null;
}
