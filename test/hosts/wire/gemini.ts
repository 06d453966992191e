/**
 * @module The Gemini API (`POST /v1beta/models/{model}:generateContent` and
 * `:streamGenerateContent`): one GenerateContentResponse, or a stream of them as SSE
 * (`?alt=sse`) or as one JSON array (no `alt`). Tool calls are functionCall parts.
 */
import {
  type ErrorTurn,
  field,
  list,
  type ReplyTurn,
  type SentToolResult,
  tokens,
  type WireCodec,
} from './types.js';

function parts(turn: ReplyTurn, next: (p: string) => string): object[] {
  const out: object[] = [];
  if (turn.text !== undefined) out.push({ text: turn.text });
  for (const call of turn.toolCalls ?? []) {
    out.push({ functionCall: { id: call.id ?? next('fc_'), name: call.name, args: call.input } });
  }
  return out;
}

function response(turn: ReplyTurn, next: (p: string) => string, model: string) {
  const content = parts(turn, next);
  const out = tokens(JSON.stringify(content));
  return {
    candidates: [{ content: { role: 'model', parts: content }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: out, totalTokenCount: 10 + out },
    modelVersion: model,
    responseId: next('gresp_'),
  };
}

const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  503: 'UNAVAILABLE',
};

export const geminiCodec: WireCodec = {
  format: 'gemini',

  json(turn, ids, model) {
    return response(turn, (p) => ids.next(p), model);
  },

  /** One chunk per response; the server frames them as SSE or as a JSON array. */
  stream(turn, ids, model) {
    return [JSON.stringify(response(turn, (p) => ids.next(p), model))];
  },

  error(turn: ErrorTurn) {
    return {
      error: {
        code: turn.status,
        message: turn.message ?? `status ${turn.status}`,
        status: STATUS[turn.status] ?? 'INTERNAL',
      },
    };
  },

  streamError(error) {
    return JSON.stringify({
      error: {
        code: 503,
        message: error.message ?? 'The model is overloaded.',
        status: error.type ?? 'UNAVAILABLE',
      },
    });
  },

  toolNames(body) {
    return list(body, 'tools').flatMap((t) =>
      list(t, 'functionDeclarations').map((d) => String(field(d, 'name'))),
    );
  },

  toolResults(body) {
    const out: SentToolResult[] = [];
    for (const content of list(body, 'contents')) {
      for (const part of list(content, 'parts')) {
        const fr = field(part, 'functionResponse');
        if (fr === undefined) continue;
        const response = field(fr, 'response');
        const name = String(field(fr, 'name'));
        out.push({
          callId: String(field(fr, 'id') ?? name),
          name,
          text: typeof response === 'string' ? response : JSON.stringify(response ?? null),
          isError: field(response, 'error') !== undefined,
        });
      }
    }
    return out;
  },
};
