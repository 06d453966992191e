import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { appendLine, ConfigError, estimateTokens } from '../../core/index.js';
import type {
  Substrate,
  SubstrateEvent,
  SubstrateRequest,
  SubstrateResult,
  ToolCall,
  Usage,
} from './types.js';

/**
 * The scripted substrate: deterministic model turns read from a file, for tests, dry runs and
 * benchmarks. A script is a list of runs; each `run()` plays the run whose index is the number
 * of assistant messages already in the request (so a retry or a continued session plays the
 * next run). A run is a list of steps: a step's tool calls go through the runtime's
 * `executeTool` (so role enforcement is exercised for real), and the first step without tool
 * calls ends the run with its text (plus its `output` as a fenced JSON block).
 */

const toolCallSchema = z
  .object({ id: z.string().optional(), name: z.string().min(1), input: z.unknown().default({}) })
  .strict();

const stepSchema = z
  .object({
    /** Wait this long before the step (the model "thinking"); counts as substrate time. */
    delay_ms: z.number().int().min(0).default(0),
    text: z.string().default(''),
    tool_calls: z.array(toolCallSchema).default([]),
    /** A JSON value appended to the text as a fenced ```json block. */
    output: z.unknown().optional(),
    /** The model's own count of this step's output tokens, reported as a real model API would. */
    output_tokens: z.number().int().min(0).optional(),
    /** Fail the run here with this substrate failure. */
    fail: z.enum(['budget_exhausted', 'substrate_unavailable', 'substrate_error', 'aborted']).optional(),
  })
  .strict();

const runSchema = z.object({ steps: z.array(stepSchema).min(1) }).strict();

export const scriptSchema = z
  .object({
    /** Append every request received, as one JSON line, to this file (relative to the script). */
    record: z.string().optional(),
    runs: z.array(runSchema).optional(),
    /** Shorthand for a script of one run. */
    steps: z.array(stepSchema).optional(),
  })
  .strict()
  .refine((s) => (s.runs ? 1 : 0) + (s.steps ? 1 : 0) === 1, 'give exactly one of "runs" or "steps"');

export type Script = z.input<typeof scriptSchema>;
type ParsedScript = z.output<typeof scriptSchema>;
type Step = z.output<typeof stepSchema>;

/** What the scripted substrate received: the request without its callbacks. */
export interface RecordedRequest {
  readonly sessionId: string;
  readonly systemPrompt: string;
  readonly messages: SubstrateRequest['messages'];
  readonly tools: SubstrateRequest['tools'];
  readonly removedTools: readonly string[];
  readonly mcpServers: SubstrateRequest['mcpServers'];
  readonly budget: SubstrateRequest['budget'];
  /** What each tool call gave back, in order (filled as the run goes). */
  readonly toolResults: {
    readonly name: string;
    readonly output: string;
    readonly isError: boolean;
    readonly denied?: boolean;
  }[];
}

/** A script asked for a run it does not have, or was left with runs unplayed. */
export class ScriptError extends Error {
  override readonly name = 'ScriptError';
}

export class ScriptedSubstrate implements Substrate {
  readonly kind = 'scripted';
  readonly enforcement = { toolList: true, execution: true } as const;
  /** Every request received, in order. */
  readonly calls: RecordedRequest[] = [];
  private readonly runs: ParsedScript['runs'] & {};
  private readonly recordFile: string | undefined;
  private played = new Set<number>();

  constructor(script: Script, options: { baseDir?: string } = {}) {
    const parsed = scriptSchema.parse(script);
    this.runs = parsed.runs ?? [{ steps: parsed.steps ?? [] }];
    this.recordFile = parsed.record ? resolve(options.baseDir ?? process.cwd(), parsed.record) : undefined;
  }

  /** Throws unless every run was played. */
  assertComplete(): void {
    const left = this.runs.map((_, i) => i).filter((i) => !this.played.has(i));
    if (left.length > 0) throw new ScriptError(`script runs never played: ${left.join(', ')}`);
  }

  async run(request: SubstrateRequest): Promise<SubstrateResult> {
    const recorded: RecordedRequest = {
      sessionId: request.sessionId,
      systemPrompt: request.systemPrompt,
      messages: request.messages,
      tools: request.tools,
      removedTools: request.removedTools,
      mcpServers: request.mcpServers,
      budget: request.budget,
      toolResults: [],
    };
    this.calls.push(recorded);
    const started = performance.now();
    try {
      return await this.play(request, recorded, started);
    } finally {
      if (this.recordFile) appendLine(this.recordFile, JSON.stringify(recorded));
    }
  }

  private async play(
    request: SubstrateRequest,
    recorded: RecordedRequest,
    started: number,
  ): Promise<SubstrateResult> {
    const index = request.messages.filter((m) => m.role === 'assistant').length;
    const run = this.runs[index];
    const usage = { inputTokens: estimateTokens(request.systemPrompt), outputTokens: 0 };
    const emit = (event: SubstrateEvent) => request.onEvent(event);
    const finish = (
      partial: Pick<SubstrateResult, 'status' | 'text' | 'turns'> & Partial<SubstrateResult>,
    ): SubstrateResult => {
      const total: Usage = { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens };
      emit({ type: 'usage', ...total });
      return { usage: total, permissionDenials: [], substrateMs: performance.now() - started, ...partial };
    };
    if (!run) {
      return finish({
        status: 'failed',
        text: '',
        turns: 0,
        failure: {
          code: 'substrate_error',
          message: `the script has no run ${index} (it has ${this.runs.length})`,
        },
      });
    }
    this.played.add(index);
    let turns = 0;
    let text = '';
    for (const [i, step] of run.steps.entries()) {
      if (turns >= request.budget.maxTurns) {
        return finish({
          status: 'failed',
          text,
          turns,
          failure: { code: 'budget_exhausted', message: `max turns (${request.budget.maxTurns}) reached` },
        });
      }
      if (step.delay_ms > 0 && !(await sleep(step.delay_ms, request.signal))) {
        return finish({ status: 'failed', text, turns, failure: { code: 'aborted', message: 'aborted' } });
      }
      turns++;
      if (step.fail)
        return finish({
          status: 'failed',
          text,
          turns,
          failure: { code: step.fail, message: `scripted ${step.fail}` },
        });
      text = stepText(step);
      usage.outputTokens += estimateTokens(text);
      if (text) emit({ type: 'text', text });
      if (step.tool_calls.length === 0)
        return finish({
          status: 'completed',
          text,
          turns,
          ...(step.output_tokens !== undefined ? { emissionTokens: step.output_tokens } : {}),
        });
      for (const [j, call] of step.tool_calls.entries()) {
        const toolCall: ToolCall = {
          id: call.id ?? `call_${index}_${i}_${j}`,
          name: call.name,
          input: call.input,
        };
        emit({ type: 'tool_call', ...toolCall });
        const result = await request.executeTool(toolCall);
        recorded.toolResults.push({
          name: toolCall.name,
          output: result.output,
          isError: result.isError,
          ...(result.denied ? { denied: true } : {}),
        });
        emit({ type: 'tool_result', id: toolCall.id, name: toolCall.name, ...result });
      }
    }
    return finish({ status: 'completed', text, turns });
  }
}

function stepText(step: Step): string {
  if (step.output === undefined) return step.text;
  const fence = `\`\`\`json\n${JSON.stringify(step.output, null, 2)}\n\`\`\``;
  return step.text ? `${step.text}\n\n${fence}` : fence;
}

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolveSleep) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolveSleep(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolveSleep(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Reads a script file (YAML or JSON); problems are a ConfigError naming the field. */
export function scriptedSubstrateFromFile(file: string): ScriptedSubstrate {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`scripted substrate file ${file}: ${(error as Error).message.split('\n')[0]}`, {
      code: 'SCRIPT_INVALID',
      file,
      hint: 'give the substrate as scripted:FILE, a readable YAML or JSON script (see docs/runtime.md, "The scripted substrate")',
    });
  }
  const parsed = scriptSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || '(top level)';
    throw new ConfigError(`scripted substrate file ${file}: ${field}: ${issue.message}`, {
      code: 'SCRIPT_INVALID',
      file,
      field,
      hint: `fix "${field}" (see docs/runtime.md, "The scripted substrate")`,
    });
  }
  return new ScriptedSubstrate(parsed.data, { baseDir: dirname(file) });
}
