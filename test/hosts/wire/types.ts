/**
 * @module The shapes every wire format shares: a scripted turn, a recorded request, and the
 * codec interface each wire format implements (encode a turn, read tool results back).
 */

/** The wire formats the scripted model server speaks. */
export const WIRE_FORMATS = ['anthropic', 'responses', 'chat', 'gemini'] as const;
export type WireFormat = (typeof WIRE_FORMATS)[number];

/** One tool call the model makes. `id` is generated when absent. */
export interface ToolCall {
  name: string;
  input: Record<string, unknown>;
  id?: string;
  /**
   * Responses API only: the namespace of a namespaced tool (Codex offers each MCP server's
   * tools as one `{ type: 'namespace', name: 'mcp__<server>' }` tool holding plain names).
   */
  namespace?: string;
}

/** A model reply: text, tool calls, or both (text first). */
export interface ReplyTurn {
  text?: string;
  toolCalls?: ToolCall[];
  /** Milliseconds to wait before answering (a model that takes its time). */
  delayMs?: number;
  /** The token counts to report (Chat Completions); default a count of the reply, 10 for the prompt. */
  usage?: { input: number; output: number };
  /**
   * Streamed replies only: the stream breaks off with this API's in-stream error event (an
   * overload by default) after `afterChunks` chunks (default: half the stream), and ends.
   */
  streamError?: StreamError;
}

/** An error event inside a 200 stream, as an API sends one when it overloads mid-answer. */
export interface StreamError {
  afterChunks?: number;
  /** The error's type (Anthropic) or code (OpenAI); default an overload. */
  type?: string;
  message?: string;
}

/** An HTTP error instead of a reply (529 overloaded, 429, 500…), to test a host's retries. */
export interface ErrorTurn {
  status: number;
  message?: string;
  /** Milliseconds to wait before answering. */
  delayMs?: number;
}

export type Turn = ReplyTurn | ErrorTurn;

/** A turn, or a function of the request it answers (to react to what the host sent). */
export type ScriptStep = Turn | ((request: RecordedRequest) => Turn);

/** Every request the server saw, parsed. */
export interface RecordedRequest {
  /** Order of arrival over all requests, model turns and side requests alike. */
  seq: number;
  method: string;
  /** Path without the query string. */
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  /** Parsed JSON body, or the raw text when it is not JSON, or null when empty. */
  body: unknown;
  /** The wire format of a model turn; null for a side request. */
  wire: WireFormat | null;
  /** Whether the model turn was answered as a stream. */
  stream: boolean;
}

/** A tool result as the host sent it back to the model, normalized over the wire formats. */
export interface SentToolResult {
  /** The call id the result answers (Gemini: the functionCall id, or the name when it has none). */
  callId: string;
  /** The tool name, from the matching call in the same request (Gemini: its functionResponse). */
  name: string | null;
  /** The result as text: the host's own wrapping included (JSON-encoded when it was structured). */
  text: string;
  /** True when the host flagged the result as an error. */
  isError: boolean;
}

/** What one wire format knows: how to answer a turn and how to read a request. */
export interface WireCodec {
  readonly format: WireFormat;
  /** The complete non-streamed JSON response to a turn. */
  json(turn: ReplyTurn, ids: IdSource, model: string): unknown;
  /** The streamed response to a turn: a list of raw chunks written in order. */
  stream(turn: ReplyTurn, ids: IdSource, model: string): string[];
  /** The error body this API returns with an error status. */
  error(turn: ErrorTurn): unknown;
  /** The raw chunk this API sends when a stream fails midway (an overload). */
  streamError(error: StreamError): string;
  /** The tool names offered in a request. */
  toolNames(body: unknown): string[];
  /** The tool results a request carries back to the model, oldest first. */
  toolResults(body: unknown): SentToolResult[];
}

/** Fresh ids for messages and calls; deterministic per server so recordings are stable. */
export interface IdSource {
  next(prefix: string): string;
}

/** A plain object's field, or undefined. */
export function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

/** An array field, or []. */
export function list(value: unknown, key: string): unknown[] {
  const v = field(value, key);
  return Array.isArray(v) ? v : [];
}

/** A rough token count for usage fields (four characters a token). */
export function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

/** Text of a content value that is a string, or an array of `{ text }` parts; else its JSON. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content) && content.every((p) => typeof field(p, 'text') === 'string')) {
    return content.map((p) => field(p, 'text') as string).join('');
  }
  return JSON.stringify(content ?? null);
}

/** One server-sent event. */
export function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}
