/**
 * @module OpenAI Chat Completions (`POST /v1/chat/completions`): a chat.completion JSON, or
 * chat.completion.chunk SSE with tool_calls deltas, a usage chunk when asked, and `[DONE]`.
 */
import {
  contentText,
  type ErrorTurn,
  field,
  list,
  type ReplyTurn,
  type SentToolResult,
  sse,
  tokens,
  type WireCodec,
} from './types.js';

function calls(turn: ReplyTurn, next: (p: string) => string) {
  return (turn.toolCalls ?? []).map((call) => ({
    id: call.id ?? next('call_'),
    type: 'function' as const,
    function: { name: call.name, arguments: JSON.stringify(call.input) },
  }));
}

const finish = (turn: ReplyTurn) => (turn.toolCalls?.length ? 'tool_calls' : 'stop');

function usage(turn: ReplyTurn) {
  if (turn.usage)
    return {
      prompt_tokens: turn.usage.input,
      completion_tokens: turn.usage.output,
      total_tokens: turn.usage.input + turn.usage.output,
    };
  const out = tokens(JSON.stringify(turn));
  return { prompt_tokens: 10, completion_tokens: out, total_tokens: 10 + out };
}

export const chatCodec: WireCodec = {
  format: 'chat',

  json(turn, ids, model) {
    const toolCalls = calls(turn, (p) => ids.next(p));
    return {
      id: ids.next('chatcmpl-'),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: turn.text ?? null,
            ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: finish(turn),
        },
      ],
      usage: usage(turn),
    };
  },

  stream(turn, ids, model) {
    const id = ids.next('chatcmpl-');
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: object, finish_reason: string | null = null) =>
      sse({
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        choices: [{ index: 0, delta, finish_reason }],
      });
    const events = [chunk({ role: 'assistant', content: '' })];
    if (turn.text !== undefined) events.push(chunk({ content: turn.text }));
    calls(turn, (p) => ids.next(p)).forEach((call, index) => {
      events.push(
        chunk({
          tool_calls: [
            { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
          ],
        }),
      );
      events.push(chunk({ tool_calls: [{ index, function: { arguments: call.function.arguments } }] }));
    });
    events.push(chunk({}, finish(turn)));
    // Sent unconditionally: clients that did not ask for usage ignore a chunk with no choices.
    events.push(
      sse({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usage(turn) }),
    );
    events.push(sse('[DONE]'));
    return events;
  },

  error(turn: ErrorTurn) {
    return { error: { message: turn.message ?? `status ${turn.status}`, type: 'server_error', code: null } };
  },

  // OpenAI-compatible servers (vLLM, OpenRouter…) send the error as a data chunk of its own.
  streamError(error) {
    return sse({
      error: {
        message: error.message ?? 'The server is overloaded',
        type: 'server_error',
        code: error.type ?? 'overloaded',
      },
    });
  },

  toolNames(body) {
    return list(body, 'tools').map((t) => String(field(field(t, 'function'), 'name') ?? field(t, 'name')));
  },

  toolResults(body) {
    const names = new Map<string, string>();
    const out: SentToolResult[] = [];
    for (const message of list(body, 'messages')) {
      for (const call of list(message, 'tool_calls')) {
        names.set(String(field(call, 'id')), String(field(field(call, 'function'), 'name')));
      }
      if (field(message, 'role') === 'tool') {
        const callId = String(field(message, 'tool_call_id'));
        out.push({
          callId,
          name: names.get(callId) ?? null,
          text: contentText(field(message, 'content')),
          isError: false,
        });
      }
    }
    return out;
  },
};
