/**
 * The `openai-compatible` substrate: any server speaking OpenAI's Chat Completions (vLLM,
 * Ollama, LM Studio, OpenRouter, llama.cpp server, OpenAI itself), streamed, with tools; or
 * OpenAI's Responses API when `api: responses` is selected. The tool loop runs here and every
 * call goes through `request.executeTool`, as in the `anthropic` substrate.
 *
 * Plain `fetch` and a 50-line SSE reader rather than the `openai` package: that package
 * installs at 20 MB (openai 6.49, measured with `npm install openai`) for two endpoints whose
 * streaming we read in about 300 lines here, and it would be bundled into the CLI.
 */
import { BudgetMeter, unavailable } from './budget.js';
import { type Json, num, obj, str } from './json.js';
import { type ApiSubstrateOptions, missingKey } from './options.js';
import { ModelCallError, reportRetry, statusError, streamError, withRetry } from './retry.js';
import { readSse } from './sse.js';
import type { Substrate, SubstrateRequest, SubstrateResult, ToolCall, Usage } from './types.js';

export type OpenAiApi = 'chat' | 'responses';

export interface OpenAiCompatibleOptions extends ApiSubstrateOptions {
  readonly api: OpenAiApi;
}

/** One model turn's outcome, whichever API produced it. */
interface TurnOutcome {
  text: string;
  calls: ToolCall[];
  usage: Usage;
  /** What to append to the conversation for the next turn (API-specific items). */
  replay: unknown[];
}

function parseArgs(text: string): unknown {
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    return { _raw: text };
  }
}

export function openAiCompatibleSubstrate(options: OpenAiCompatibleOptions): Substrate {
  return {
    kind: 'openai-compatible',
    enforcement: { toolList: true, execution: true },
    async run(request) {
      if (options.keyRequired && !options.apiKey)
        return unavailable(missingKey('openai-compatible', options.apiKeyEnv));
      return runLoop(options, request);
    },
  };
}

async function post(options: OpenAiCompatibleOptions, path: string, body: Json, signal: AbortSignal) {
  let res: Response;
  try {
    res = await fetch(`${options.baseUrl.replace(/\/$/, '')}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new ModelCallError(
      `connection failed: ${(error as Error).message}`,
      'connection',
      true,
      undefined,
      {
        cause: error,
      },
    );
  }
  if (!res.ok || !res.body) {
    const detail = await res.text().catch(() => '');
    const message = str(obj(obj(safeJson(detail)).error).message) ?? detail.slice(0, 300);
    throw statusError(res.status, message, res.headers.get('retry-after'));
  }
  return res.body;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function chatTurn(
  options: OpenAiCompatibleOptions,
  request: SubstrateRequest,
  messages: unknown[],
  signal: AbortSignal,
): Promise<TurnOutcome> {
  const body = await post(
    options,
    '/chat/completions',
    {
      model: options.model,
      messages,
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: options.maxOutputTokens,
      ...(request.tools.length > 0
        ? {
            tools: request.tools.map((t) => ({
              type: 'function',
              function: { name: t.name, description: t.description, parameters: t.inputSchema },
            })),
          }
        : {}),
    },
    signal,
  );
  let text = '';
  const calls: { id: string; name: string; args: string }[] = [];
  const usage = { inputTokens: 0, outputTokens: 0 };
  for await (const event of readSse(body)) {
    if (event.data === '[DONE]') break;
    const chunk = obj(safeJson(event.data));
    if (chunk.error) {
      const error = obj(chunk.error);
      throw streamError(str(error.code) ?? str(error.type), str(error.message) ?? 'stream error');
    }
    if (chunk.usage) {
      const u = obj(chunk.usage);
      usage.inputTokens = num(u.prompt_tokens);
      usage.outputTokens = num(u.completion_tokens);
    }
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      const delta = obj(obj(choice).delta);
      const content = str(delta.content);
      if (content) {
        text += content;
        request.onEvent({ type: 'text', text: content });
      }
      for (const part of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
        const p = obj(part);
        const index = num(p.index);
        const fn = obj(p.function);
        calls[index] ??= { id: '', name: '', args: '' };
        const slot = calls[index]!;
        if (str(p.id)) slot.id = str(p.id)!;
        if (str(fn.name)) slot.name += str(fn.name);
        if (str(fn.arguments)) slot.args += str(fn.arguments);
      }
    }
  }
  const done = calls.filter(Boolean);
  return {
    text,
    calls: done.map((c, i) => ({ id: c.id || `call_${i}`, name: c.name, input: parseArgs(c.args) })),
    usage,
    replay: [
      {
        role: 'assistant',
        content: text || null,
        ...(done.length > 0
          ? {
              tool_calls: done.map((c, i) => ({
                id: c.id || `call_${i}`,
                type: 'function',
                function: { name: c.name, arguments: c.args || '{}' },
              })),
            }
          : {}),
      },
    ],
  };
}

async function responsesTurn(
  options: OpenAiCompatibleOptions,
  request: SubstrateRequest,
  input: unknown[],
  signal: AbortSignal,
): Promise<TurnOutcome> {
  const body = await post(
    options,
    '/responses',
    {
      model: options.model,
      input,
      stream: true,
      // Stateless: the whole conversation is sent each turn, nothing is kept on the server.
      store: false,
      max_output_tokens: options.maxOutputTokens,
      ...(request.systemPrompt ? { instructions: request.systemPrompt } : {}),
      ...(request.tools.length > 0
        ? {
            tools: request.tools.map((t) => ({
              type: 'function',
              name: t.name,
              description: t.description,
              parameters: t.inputSchema,
            })),
          }
        : {}),
    },
    signal,
  );
  let text = '';
  const items: Json[] = [];
  const usage = { inputTokens: 0, outputTokens: 0 };
  let completed = false;
  for await (const event of readSse(body)) {
    const data = obj(safeJson(event.data));
    const type = str(data.type) ?? event.event;
    if (type === 'response.output_text.delta') {
      const delta = str(data.delta) ?? '';
      text += delta;
      if (delta) request.onEvent({ type: 'text', text: delta });
    } else if (type === 'response.output_item.done') {
      items.push(obj(data.item));
    } else if (type === 'response.completed') {
      const u = obj(obj(data.response).usage);
      usage.inputTokens = num(u.input_tokens);
      usage.outputTokens = num(u.output_tokens);
      completed = true;
    } else if (type === 'error') {
      throw streamError(str(data.code) ?? str(data.type), str(data.message) ?? 'stream error');
    } else if (type === 'response.failed' || type === 'response.incomplete') {
      const error = obj(obj(data.response).error);
      throw streamError(str(error.code) ?? 'server_error', str(error.message) ?? `${type}`);
    }
  }
  if (!completed) throw new ModelCallError('the stream ended before response.completed', 'stream_cut', true);
  const calls = items
    .filter((i) => i.type === 'function_call')
    .map((i) => ({
      id: str(i.call_id) ?? '',
      name: str(i.name) ?? '',
      input: parseArgs(str(i.arguments) ?? ''),
    }));
  // Reasoning items without encrypted content cannot be replayed statelessly; messages and calls can.
  const replay = items
    .filter((i) => i.type === 'message' || i.type === 'function_call')
    .map(({ id: _id, status: _status, ...rest }) => rest);
  return { text, calls, usage, replay };
}

async function runLoop(
  options: OpenAiCompatibleOptions,
  request: SubstrateRequest,
): Promise<SubstrateResult> {
  const meter = new BudgetMeter(request.budget, request.signal);
  const chat = options.api === 'chat';
  const conversation: unknown[] = chat
    ? [
        ...(request.systemPrompt ? [{ role: 'system', content: request.systemPrompt }] : []),
        ...request.messages.map((m) => ({ role: m.role, content: m.content })),
      ]
    : request.messages.map((m) => ({ role: m.role, content: m.content }));
  let lastText = '';
  try {
    for (;;) {
      const spent = meter.exhausted();
      if (spent) return meter.result(lastText, { code: 'budget_exhausted', message: spent });
      const turn = await withRetry(
        () =>
          chat
            ? chatTurn(options, request, conversation, meter.signal)
            : responsesTurn(options, request, conversation, meter.signal),
        {
          policy: options.retry,
          signal: meter.signal,
          classify: (error) =>
            error instanceof ModelCallError
              ? error
              : new ModelCallError((error as Error).message ?? String(error), 'substrate_error', false),
          onRetry: reportRetry(request.onEvent),
        },
      );
      meter.chargeTurn(turn.usage, options.pricing, request.onEvent);
      if (turn.text) lastText = turn.text;
      conversation.push(...turn.replay);
      if (turn.calls.length === 0) {
        const result = meter.result(lastText);
        // A server that reports usage counts the final answer's tokens itself.
        return turn.text && turn.usage.outputTokens > 0
          ? { ...result, emissionTokens: turn.usage.outputTokens }
          : result;
      }
      for (const call of turn.calls) {
        request.onEvent({ type: 'tool_call', ...call });
        const result = await request.executeTool(call);
        request.onEvent({ type: 'tool_result', id: call.id, name: call.name, ...result });
        // Chat has no error flag on a tool message; the text says so.
        const output = result.isError && chat ? `Error: ${result.output}` : result.output;
        conversation.push(
          chat
            ? { role: 'tool', tool_call_id: call.id, content: output }
            : { type: 'function_call_output', call_id: call.id, output },
        );
      }
    }
  } catch (error) {
    if (meter.signal.aborted) return meter.result(lastText, meter.abortFailure());
    const failure =
      error instanceof ModelCallError ? error : new ModelCallError(String(error), 'substrate_error', false);
    request.onEvent({ type: 'error', code: failure.code, message: failure.message, retrying: false });
    return meter.result(lastText, { code: 'substrate_error', message: failure.message });
  }
}
