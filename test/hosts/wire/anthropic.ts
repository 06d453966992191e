/**
 * @module The Anthropic Messages API (`POST /v1/messages`): JSON, and `stream: true` SSE with
 * the real event sequence (message_start, content_block_start/delta/stop, message_delta,
 * message_stop; tool input streamed as input_json_delta).
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

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: object };

function blocks(turn: ReplyTurn, next: (p: string) => string): Block[] {
  const out: Block[] = [];
  if (turn.text !== undefined) out.push({ type: 'text', text: turn.text });
  for (const call of turn.toolCalls ?? []) {
    out.push({ type: 'tool_use', id: call.id ?? next('toolu_'), name: call.name, input: call.input });
  }
  return out;
}

const stopReason = (turn: ReplyTurn) => (turn.toolCalls?.length ? 'tool_use' : 'end_turn');

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

export const anthropicCodec: WireCodec = {
  format: 'anthropic',

  json(turn, ids, model) {
    const content = blocks(turn, (p) => ids.next(p));
    return {
      id: ids.next('msg_'),
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: stopReason(turn),
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: tokens(JSON.stringify(content)) },
    };
  },

  stream(turn, ids, model) {
    const content = blocks(turn, (p) => ids.next(p));
    const events = [
      sse(
        {
          type: 'message_start',
          message: {
            id: ids.next('msg_'),
            type: 'message',
            role: 'assistant',
            model,
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 10, output_tokens: 1 },
          },
        },
        'message_start',
      ),
      sse({ type: 'ping' }, 'ping'),
    ];
    content.forEach((block, index) => {
      const start = block.type === 'text' ? { type: 'text', text: '' } : { ...block, input: {} };
      events.push(sse({ type: 'content_block_start', index, content_block: start }, 'content_block_start'));
      const delta =
        block.type === 'text'
          ? { type: 'text_delta', text: block.text }
          : { type: 'input_json_delta', partial_json: JSON.stringify(block.input) };
      events.push(sse({ type: 'content_block_delta', index, delta }, 'content_block_delta'));
      events.push(sse({ type: 'content_block_stop', index }, 'content_block_stop'));
    });
    events.push(
      sse(
        {
          type: 'message_delta',
          delta: { stop_reason: stopReason(turn), stop_sequence: null },
          usage: { output_tokens: tokens(JSON.stringify(content)) },
        },
        'message_delta',
      ),
      sse({ type: 'message_stop' }, 'message_stop'),
    );
    return events;
  },

  error(turn: ErrorTurn) {
    const type = ERROR_TYPES[turn.status] ?? 'api_error';
    return { type: 'error', error: { type, message: turn.message ?? type } };
  },

  streamError(error) {
    const type = error.type ?? 'overloaded_error';
    return sse({ type: 'error', error: { type, message: error.message ?? 'Overloaded' } }, 'error');
  },

  toolNames(body) {
    return list(body, 'tools').map((t) => String(field(t, 'name')));
  },

  toolResults(body) {
    const names = new Map<string, string>();
    const out: SentToolResult[] = [];
    for (const message of list(body, 'messages')) {
      for (const part of list(message, 'content')) {
        if (field(part, 'type') === 'tool_use')
          names.set(String(field(part, 'id')), String(field(part, 'name')));
        if (field(part, 'type') === 'tool_result') {
          const callId = String(field(part, 'tool_use_id'));
          out.push({
            callId,
            name: names.get(callId) ?? null,
            text: contentText(field(part, 'content')),
            isError: field(part, 'is_error') === true,
          });
        }
      }
    }
    return out;
  },
};
