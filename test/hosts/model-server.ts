/**
 * @module A scripted model server on 127.0.0.1 for running real host CLIs (and later the
 * persona runtime's substrates) against a model that says exactly what a test wants.
 *
 * One node:http server (port 0, loopback only) speaks four wire formats:
 *
 * - Anthropic Messages: `POST …/v1/messages` (JSON, or SSE when `stream: true`);
 * - OpenAI Responses: `POST …/v1/responses` (SSE when `stream: true`, else JSON);
 * - OpenAI Chat Completions: `POST …/v1/chat/completions` (SSE when `stream: true`, else JSON);
 * - Gemini: `POST …/models/{model}:generateContent` and `:streamGenerateContent`
 *   (SSE with `?alt=sse`, else one JSON array).
 *
 * Each model request consumes the next step of the script: a reply (text and/or tool calls),
 * an error status (`{ status: 529 }`), a reply whose stream breaks off with an in-stream
 * overload (`{ text, streamError: {} }`), any of them after `delayMs`, or a function of the recorded request returning one of
 * those. Past the end of the script, every request gets the fallback (a plain "done").
 * Side requests (count_tokens, model listings, anything else) are answered sensibly and
 * recorded apart, so they never consume the script.
 *
 * ```ts
 * await using model = await startModelServer({ script: [{ toolCalls: [{ name: 'Bash', input }] }] });
 * // point the host at model.url, run it, then:
 * toolResults(model.turns[1]!) // what the host sent back for the Bash call
 * ```
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicCodec } from './wire/anthropic.js';
import { geminiCodec } from './wire/gemini.js';
import { chatCodec } from './wire/openai-chat.js';
import { responsesCodec } from './wire/openai-responses.js';
import { isStructuredOutputRequest, schemaAnswer, sideAnswer } from './wire/side.js';
import {
  type ErrorTurn,
  field,
  type IdSource,
  type RecordedRequest,
  type ReplyTurn,
  type ScriptStep,
  type SentToolResult,
  sse,
  type Turn,
  type WireCodec,
  type WireFormat,
} from './wire/types.js';

export { isStructuredOutputRequest, sampleOf, schemaAnswer } from './wire/side.js';
export type {
  ErrorTurn,
  RecordedRequest,
  ReplyTurn,
  ScriptStep,
  SentToolResult,
  StreamError,
  ToolCall,
  Turn,
  WireFormat,
} from './wire/types.js';
export { WIRE_FORMATS } from './wire/types.js';

export interface ModelServerOptions {
  /** Steps answered in order, one per model request. */
  script?: ScriptStep[];
  /** The answer once the script is used up; default `{ text: 'done' }`. */
  fallback?: ScriptStep;
  /**
   * Model requests that should not consume the script: a host's own helper calls. They are
   * recorded in `side` and answered by `sideTurn`. Default: `isStructuredOutputRequest`
   * (Gemini CLI's model router and next-speaker check ask for JSON by schema).
   */
  isSideTurn?: (request: RecordedRequest) => boolean;
  /** The answer to a side turn; default `schemaAnswer` (a JSON object the schema accepts). */
  sideTurn?: (request: RecordedRequest) => Turn;
}

export interface ModelServer {
  /** `http://127.0.0.1:PORT`, without a trailing slash. */
  readonly url: string;
  readonly port: number;
  /** Model requests that consumed a script step (or got the fallback), in order. */
  readonly turns: RecordedRequest[];
  /** Everything else: count_tokens, model listings, telemetry, side turns. */
  readonly side: RecordedRequest[];
  /** Every request, in order of arrival. */
  readonly all: RecordedRequest[];
  /** Appends steps to the script. */
  push(...steps: ScriptStep[]): void;
  /** Script steps not yet consumed. */
  remaining(): number;
  /** Throws a `ScriptNotCompleteError` when script steps are left. */
  assertComplete(): void;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Thrown by `assertComplete()` when the host made fewer model requests than scripted. */
export class ScriptNotCompleteError extends Error {
  constructor(readonly remaining: number) {
    super(`${remaining} scripted model turn(s) were never requested`);
    this.name = new.target.name;
  }
}

const CODECS: Record<WireFormat, WireCodec> = {
  anthropic: anthropicCodec,
  responses: responsesCodec,
  chat: chatCodec,
  gemini: geminiCodec,
};

/** The tool names a recorded model request offered the model. */
export function toolNames(request: RecordedRequest): string[] {
  return request.wire ? CODECS[request.wire].toolNames(request.body) : [];
}

/** The tool results a recorded model request carried back to the model, oldest first. */
export function toolResults(request: RecordedRequest): SentToolResult[] {
  return request.wire ? CODECS[request.wire].toolResults(request.body) : [];
}

/** The whole request body as text, for "does the host send X to the model" checks. */
export function requestText(request: RecordedRequest): string {
  return typeof request.body === 'string' ? request.body : JSON.stringify(request.body ?? null);
}

const isError = (turn: Turn): turn is ErrorTurn => 'status' in turn;

/** Which wire format a model request is in, or null for a side request. */
function classify(method: string, path: string): { wire: WireFormat; gemini?: string } | null {
  if (method !== 'POST') return null;
  if (path.endsWith('/messages')) return { wire: 'anthropic' };
  if (path.endsWith('/responses')) return { wire: 'responses' };
  if (path.endsWith('/chat/completions')) return { wire: 'chat' };
  const gemini = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(path);
  if (gemini) return { wire: 'gemini', gemini: gemini[2]! };
  return null;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Starts the server on 127.0.0.1 and an ephemeral port. */
export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const script = [...(options.script ?? [])];
  const fallback = options.fallback ?? { text: 'done' };
  const turns: RecordedRequest[] = [];
  const side: RecordedRequest[] = [];
  const all: RecordedRequest[] = [];
  let counter = 0;
  const ids: IdSource = { next: (prefix) => `${prefix}${(++counter).toString().padStart(6, '0')}` };

  const resolveStep = (step: ScriptStep, request: RecordedRequest): Turn =>
    typeof step === 'function' ? step(request) : step;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const body = await readBody(req);
    const kind = classify(method, url.pathname);
    const stream = kind
      ? kind.wire === 'gemini'
        ? kind.gemini === 'streamGenerateContent'
        : field(body, 'stream') === true
      : false;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      headers[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
    const recorded: RecordedRequest = {
      seq: all.length,
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body,
      wire: kind?.wire ?? null,
      stream,
    };
    all.push(recorded);
    if (!kind) {
      side.push(recorded);
      sendJson(res, 200, sideAnswer(method, url.pathname, body));
      return;
    }
    const isSide = (options.isSideTurn ?? isStructuredOutputRequest)(recorded);
    (isSide ? side : turns).push(recorded);
    const turn = isSide
      ? (options.sideTurn ?? schemaAnswer)(recorded)
      : resolveStep(script.length > 0 ? script.shift()! : fallback, recorded);
    const codec = CODECS[kind.wire];
    if (turn.delayMs) await new Promise((resolve) => setTimeout(resolve, turn.delayMs));
    if (isError(turn)) {
      sendJson(res, turn.status, codec.error(turn));
      return;
    }
    const model =
      kind.wire === 'gemini'
        ? (/\/models\/([^/:]+):/.exec(url.pathname)?.[1] ?? 'gemini')
        : String(field(body, 'model') ?? 'scripted-model');
    if (!stream) {
      sendJson(res, 200, codec.json(turn as ReplyTurn, ids, model));
      return;
    }
    const reply = turn as ReplyTurn;
    let chunks = codec.stream(reply, ids, model);
    if (reply.streamError) {
      const after = reply.streamError.afterChunks ?? Math.max(1, Math.floor(chunks.length / 2));
      chunks = [...chunks.slice(0, after), codec.streamError(reply.streamError)];
    }
    if (kind.wire === 'gemini' && url.searchParams.get('alt') !== 'sse') {
      sendJson(
        res,
        200,
        chunks.map((c) => JSON.parse(c)),
      );
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    for (const chunk of chunks) res.write(kind.wire === 'gemini' ? sse(chunk) : chunk);
    res.end();
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(error) } });
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    turns,
    side,
    all,
    push: (...steps) => {
      script.push(...steps);
    },
    remaining: () => script.length,
    assertComplete: () => {
      if (script.length > 0) throw new ScriptNotCompleteError(script.length);
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
