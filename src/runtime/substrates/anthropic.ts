/**
 * The `anthropic` substrate: the Anthropic Messages API through the official SDK, streamed,
 * with the tool loop run here. Every tool call goes through `request.executeTool` (the runtime
 * rejects anything outside the role's locked set before it runs), so enforcement is both the
 * tool list the model is offered and the execution check.
 *
 * The SDK's own retries are off (`maxRetries: 0`): this loop retries whole calls with jittered
 * backoff, so a 529 before the stream and an `overloaded_error` event in the middle of it are
 * handled the same way and each is reported as an `error` event with `retrying: true`.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { BudgetMeter, unavailable } from './budget.js';
import { type ApiSubstrateOptions, missingKey } from './options.js';
import { ModelCallError, reportRetry, statusError, streamError, withRetry } from './retry.js';
import type { Substrate, SubstrateRequest, SubstrateResult, ToolCall } from './types.js';

type MessageParam = Anthropic.MessageParam;

/** An SDK error (or anything else thrown by a call) as a classified model-call error. */
function classify(sdk: typeof import('@anthropic-ai/sdk'), error: unknown): ModelCallError {
  if (error instanceof ModelCallError) return error;
  if (error instanceof sdk.APIUserAbortError) return new ModelCallError('aborted', 'aborted', false);
  if (error instanceof sdk.APIConnectionError)
    return new ModelCallError(`connection failed: ${error.message}`, 'connection', true, undefined, {
      cause: error,
    });
  if (error instanceof sdk.APIError) {
    if (error.status === undefined)
      return streamError(error.type ?? undefined, error.apiMessage ?? error.message);
    return statusError(error.status, error.apiMessage ?? error.message, error.headers?.get('retry-after'));
  }
  return new ModelCallError(error instanceof Error ? error.message : String(error), 'substrate_error', false);
}

export function anthropicSubstrate(options: ApiSubstrateOptions): Substrate {
  return {
    kind: 'anthropic',
    enforcement: { toolList: true, execution: true },
    async run(request) {
      if (options.keyRequired && !options.apiKey)
        return unavailable(missingKey('anthropic', options.apiKeyEnv));
      // The meter starts first: loading the SDK and building its client is substrate time.
      const meter = new BudgetMeter(request.budget, request.signal);
      // Loaded on first use: the CLI's other commands never pay for the SDK.
      const sdk = await import('@anthropic-ai/sdk');
      const client = new sdk.Anthropic({
        apiKey: options.apiKey ?? 'none',
        baseURL: options.baseUrl,
        maxRetries: 0,
      });
      return runLoop(sdk, client, options, request, meter);
    },
  };
}

async function runLoop(
  sdk: typeof import('@anthropic-ai/sdk'),
  client: Anthropic,
  options: ApiSubstrateOptions,
  request: SubstrateRequest,
  meter: BudgetMeter,
): Promise<SubstrateResult> {
  const messages: MessageParam[] = request.messages.map((m) => ({ role: m.role, content: m.content }));
  const tools: Anthropic.Tool[] = request.tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: { type: 'object', ...t.inputSchema } as Anthropic.Tool.InputSchema,
  }));
  let lastText = '';
  try {
    for (;;) {
      const spent = meter.exhausted();
      if (spent) return meter.result(lastText, { code: 'budget_exhausted', message: spent });
      const message = await withRetry(
        async () => {
          const stream = client.messages.stream(
            {
              model: options.model,
              max_tokens: options.maxOutputTokens,
              ...(request.systemPrompt ? { system: request.systemPrompt } : {}),
              messages,
              ...(tools.length > 0 ? { tools } : {}),
            },
            { signal: meter.signal },
          );
          stream.on('text', (text) => request.onEvent({ type: 'text', text }));
          return await stream.finalMessage();
        },
        {
          policy: options.retry,
          signal: meter.signal,
          classify: (error) => classify(sdk, error),
          onRetry: reportRetry(request.onEvent),
        },
      );
      meter.chargeTurn(
        { inputTokens: message.usage.input_tokens, outputTokens: message.usage.output_tokens },
        options.pricing,
        request.onEvent,
      );
      const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
      if (text) lastText = text;
      messages.push({ role: 'assistant', content: message.content as Anthropic.ContentBlockParam[] });
      const calls: ToolCall[] = message.content.flatMap((b) =>
        b.type === 'tool_use' ? [{ id: b.id, name: b.name, input: b.input }] : [],
      );
      if (calls.length === 0 || message.stop_reason !== 'tool_use') {
        // The model's own count of its final answer, for the density cap.
        return text
          ? { ...meter.result(lastText), emissionTokens: message.usage.output_tokens }
          : meter.result(lastText);
      }
      const results: Anthropic.ToolResultBlockParam[] = [];
      for (const call of calls) {
        request.onEvent({ type: 'tool_call', ...call });
        const result = await request.executeTool(call);
        request.onEvent({ type: 'tool_result', id: call.id, name: call.name, ...result });
        results.push({
          type: 'tool_result',
          tool_use_id: call.id,
          content: result.output,
          ...(result.isError ? { is_error: true } : {}),
        });
      }
      messages.push({ role: 'user', content: results });
    }
  } catch (error) {
    if (meter.signal.aborted) return meter.result(lastText, meter.abortFailure());
    const failure = classify(sdk, error);
    request.onEvent({ type: 'error', code: failure.code, message: failure.message, retrying: false });
    return meter.result(lastText, { code: 'substrate_error', message: failure.message });
  }
}
