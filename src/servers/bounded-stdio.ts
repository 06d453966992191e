import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * The largest request firstlight's servers read, on stdio and HTTP alike (4 MiB). An MCP message
 * is never near it; a larger one is answered with a JSON-RPC error naming the limit and the
 * server goes on.
 */
export const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

const NEWLINE = 0x0a;
/** How much of an oversized line is kept to find its `id` (it comes early in every client's JSON). */
const HEAD_BYTES = 512;

/** The request's id, read from the first bytes of a line too large to parse. */
function idFromHead(head: string): string | number | null {
  const match = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/.exec(head);
  if (!match) return null;
  const raw = match[1]!;
  return raw.startsWith('"') ? (JSON.parse(raw) as string) : Number(raw);
}

/**
 * The SDK's StdioServerTransport with a bounded reader. The SDK's closes the transport when a
 * line passes its 10 MiB buffer: no answer, no log, every later request unanswered. Here a
 * line over `maxBytes` is skipped to its newline and answered with a JSON-RPC error (-32600,
 * the request's own id when its first bytes show it) that names the limit; a line that is not
 * JSON gets a parse error (-32700). Memory stays within `maxBytes` plus one chunk.
 */
export class BoundedStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private pending: Buffer[] = [];
  private pendingSize = 0;
  /** Set while skipping an oversized line: its size so far and its first bytes. */
  private skipping: { size: number; head: string } | undefined;
  private started = false;
  /**
   * Takes a parsed line before the SDK sees it, and says whether it answered it (the REPL's
   * direct tool calls: direct-calls.ts); what it leaves goes to `onmessage` as usual.
   */
  direct?: (message: unknown) => boolean;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    readonly maxBytes = MAX_REQUEST_BYTES,
    private readonly onRefused: (message: string) => void = () => {},
  ) {}

  private readonly onData = (chunk: Buffer) => {
    let rest = chunk;
    while (rest.length > 0) {
      const nl = rest.indexOf(NEWLINE);
      const part = nl < 0 ? rest : rest.subarray(0, nl);
      rest = nl < 0 ? Buffer.alloc(0) : rest.subarray(nl + 1);
      if (this.skipping) {
        this.skipping.size += part.length;
      } else if (this.pendingSize + part.length > this.maxBytes) {
        const head = Buffer.concat([...this.pending, part.subarray(0, HEAD_BYTES)]).subarray(0, HEAD_BYTES);
        this.skipping = { size: this.pendingSize + part.length, head: head.toString('utf8') };
        this.pending = [];
        this.pendingSize = 0;
      } else {
        this.pending.push(part);
        this.pendingSize += part.length;
      }
      if (nl < 0) break;
      this.endLine();
    }
  };

  private readonly onError = (error: Error) => this.onerror?.(error);

  private endLine(): void {
    if (this.skipping) {
      const { size, head } = this.skipping;
      this.skipping = undefined;
      const message = `request of ${size} bytes is over the ${this.maxBytes}-byte limit (${Math.round(this.maxBytes / 1048576)} MiB) of firstlight's stdio server; send less in one message`;
      this.onRefused(message);
      this.reply(idFromHead(head), -32600, message);
      return;
    }
    const line = Buffer.concat(this.pending).toString('utf8').replace(/\r$/, '');
    this.pending = [];
    this.pendingSize = 0;
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      const parsed: unknown = JSON.parse(line);
      if (this.direct?.(parsed)) return;
      message = JSONRPCMessageSchema.parse(parsed);
    } catch (error) {
      const text = `not a JSON-RPC message: ${(error as Error).message.slice(0, 200)}`;
      this.onRefused(text);
      this.reply(null, -32700, text);
      return;
    }
    this.onmessage?.(message);
  }

  /** A JSON-RPC error written as it is: `id` may be null (the SDK's message type has no null id). */
  private reply(id: string | number | null, code: number, message: string): void {
    this.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('BoundedStdioServerTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(serializeMessage(message))) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.pending = [];
    this.onclose?.();
  }
}
