/**
 * @module The OpenAI Responses API (`POST /v1/responses`): SSE with response.created,
 * output_item.added/done (message and function_call items), output_text and
 * function_call_arguments deltas, and response.completed with usage; JSON when not streamed.
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

type Item =
  | { id: string; type: 'message'; status: string; role: 'assistant'; content: object[] }
  | {
      id: string;
      type: 'function_call';
      status: string;
      call_id: string;
      name: string;
      namespace?: string;
      arguments: string;
    };

function items(turn: ReplyTurn, next: (p: string) => string): Item[] {
  const out: Item[] = [];
  if (turn.text !== undefined) {
    out.push({
      id: next('msg_'),
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: turn.text, annotations: [] }],
    });
  }
  for (const call of turn.toolCalls ?? []) {
    out.push({
      id: next('fc_'),
      type: 'function_call',
      status: 'completed',
      call_id: call.id ?? next('call_'),
      name: call.name,
      ...(call.namespace ? { namespace: call.namespace } : {}),
      arguments: JSON.stringify(call.input),
    });
  }
  return out;
}

function response(id: string, model: string, status: string, output: Item[]) {
  const out = tokens(JSON.stringify(output));
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model,
    output,
    usage:
      status === 'completed'
        ? {
            input_tokens: 10,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: out,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 10 + out,
          }
        : null,
  };
}

export const responsesCodec: WireCodec = {
  format: 'responses',

  json(turn, ids, model) {
    return response(
      ids.next('resp_'),
      model,
      'completed',
      items(turn, (p) => ids.next(p)),
    );
  },

  stream(turn, ids, model) {
    const id = ids.next('resp_');
    const output = items(turn, (p) => ids.next(p));
    let seq = 0;
    const ev = (type: string, data: object) => sse({ type, sequence_number: seq++, ...data }, type);
    const events = [
      ev('response.created', { response: response(id, model, 'in_progress', []) }),
      ev('response.in_progress', { response: response(id, model, 'in_progress', []) }),
    ];
    output.forEach((item, output_index) => {
      if (item.type === 'message') {
        const text = (item.content[0] as { text: string }).text;
        events.push(
          ev('response.output_item.added', {
            output_index,
            item: { ...item, status: 'in_progress', content: [] },
          }),
        );
        const at = { item_id: item.id, output_index, content_index: 0 };
        events.push(
          ev('response.content_part.added', {
            ...at,
            part: { type: 'output_text', text: '', annotations: [] },
          }),
        );
        events.push(ev('response.output_text.delta', { ...at, delta: text }));
        events.push(ev('response.output_text.done', { ...at, text }));
        events.push(ev('response.content_part.done', { ...at, part: item.content[0] }));
      } else {
        events.push(
          ev('response.output_item.added', {
            output_index,
            item: { ...item, status: 'in_progress', arguments: '' },
          }),
        );
        const at = { item_id: item.id, output_index };
        events.push(ev('response.function_call_arguments.delta', { ...at, delta: item.arguments }));
        events.push(ev('response.function_call_arguments.done', { ...at, arguments: item.arguments }));
      }
      events.push(ev('response.output_item.done', { output_index, item }));
    });
    events.push(ev('response.completed', { response: response(id, model, 'completed', output) }));
    return events;
  },

  error(turn: ErrorTurn) {
    return { error: { message: turn.message ?? `status ${turn.status}`, type: 'server_error', code: null } };
  },

  streamError(error) {
    return sse(
      {
        type: 'error',
        code: error.type ?? 'server_is_overloaded',
        message: error.message ?? 'The server is overloaded',
        param: null,
      },
      'error',
    );
  },

  toolNames(body) {
    // Function tools carry `name`; built-in and namespaced tools carry only `type` (and `tools`).
    return list(body, 'tools').flatMap((t) => {
      const nested = list(t, 'tools').map((n) => `${String(field(t, 'name'))}__${String(field(n, 'name'))}`);
      return [String(field(t, 'name') ?? field(t, 'type')), ...nested];
    });
  },

  toolResults(body) {
    const names = new Map<string, string>();
    const out: SentToolResult[] = [];
    for (const item of list(body, 'input')) {
      const type = field(item, 'type');
      if (type === 'function_call' || type === 'custom_tool_call' || type === 'local_shell_call') {
        const ns = field(item, 'namespace');
        const name = String(field(item, 'name') ?? type);
        names.set(String(field(item, 'call_id')), typeof ns === 'string' ? `${ns}__${name}` : name);
      }
      if (type === 'function_call_output' || type === 'custom_tool_call_output') {
        const callId = String(field(item, 'call_id'));
        const output = field(item, 'output');
        out.push({
          callId,
          name: names.get(callId) ?? null,
          text: contentText(
            typeof output === 'object' && output !== null && 'content' in output
              ? field(output, 'content')
              : output,
          ),
          isError: field(output, 'success') === false,
        });
      }
    }
    return out;
  },
};
