import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../core/index.js';
import { MAX_REQUEST_BYTES } from './bounded-stdio.js';
import { header } from './http-guard.js';

/**
 * The MCP endpoint of an HTTP server: streamable HTTP with one MCP server per session (made by
 * `createServer`), sessions closed after `sessionIdleMs` without a request. The caller has
 * already checked Host, Origin and token, and routed the request here by its path.
 */
export interface McpSessionsOptions {
  readonly log: Logger;
  /** Makes a fresh MCP server for each new session. */
  readonly createServer: (sessionKey: string) => McpServer;
  /** A session with no request for this long is closed (its client re-initializes); default 8 hours. */
  readonly sessionIdleMs?: number;
}

export interface McpSessions {
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Closes every session and stops the idle sweeper. */
  close(): Promise<void>;
}

/** The request size limit, the same as on stdio. */
const MAX_BODY = MAX_REQUEST_BYTES;

export function mcpSessions(options: McpSessionsOptions): McpSessions {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  // Clients that vanish without DELETE would otherwise keep their server (and its caches) forever.
  const lastSeen = new Map<string, number>();
  const idleMs = options.sessionIdleMs ?? 8 * 3600_000;
  const sweeper = setInterval(
    () => {
      const cutoff = Date.now() - idleMs;
      for (const [id, seen] of lastSeen) {
        if (seen >= cutoff) continue;
        lastSeen.delete(id);
        options.log.debug(`http session ${id} idle for ${idleMs} ms: closed`);
        void sessions
          .get(id)
          ?.close()
          .catch(() => {});
      }
    },
    Math.min(idleMs, 60_000),
  );
  sweeper.unref();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sessionId = header(req, 'mcp-session-id');
    if (sessionId && sessions.has(sessionId)) lastSeen.set(sessionId, Date.now());
    if (req.method === 'POST') {
      const body = await readJson(req);
      if (body === TOO_LARGE) {
        res.setHeader('connection', 'close');
        return reply(res, 413, `request body over ${MAX_BODY} bytes: an MCP message is never this large`);
      }
      if (body === undefined) return reply(res, 400, 'request body is not valid JSON');
      let transport = sessionId ? sessions.get(sessionId) : undefined;
      if (!transport) {
        if (sessionId) return reply(res, 404, 'unknown or expired session: re-initialize');
        if (!isInitializeRequest(body))
          return reply(res, 400, 'no session: the first request must be initialize');
        const key = randomUUID();
        const created = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => key,
          onsessioninitialized: (id) => {
            sessions.set(id, created);
            lastSeen.set(id, Date.now());
          },
        });
        created.onclose = () => {
          if (!created.sessionId) return;
          sessions.delete(created.sessionId);
          lastSeen.delete(created.sessionId);
        };
        await options.createServer(key).connect(created);
        transport = created;
      }
      await transport.handleRequest(req, res, body);
      return;
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      const transport = sessionId ? sessions.get(sessionId) : undefined;
      if (!transport) return reply(res, 400, 'missing or unknown mcp-session-id');
      await transport.handleRequest(req, res);
      return;
    }
    res.setHeader('Allow', 'GET, POST, DELETE');
    reply(res, 405, 'method not allowed');
  }

  return {
    handle,
    close: async () => {
      clearInterval(sweeper);
      for (const transport of sessions.values()) await transport.close().catch(() => {});
    },
  };
}

/** A JSON-RPC error reply, the shape MCP clients read. */
export function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

const TOO_LARGE = Symbol('too large');

/**
 * The parsed JSON body; undefined when it does not parse, TOO_LARGE past MAX_BODY (reading stops
 * there without destroying the socket, so the 413 still reaches the client).
 */
function readJson(req: IncomingMessage): Promise<unknown> {
  return readBody(req, MAX_BODY).then((text) => {
    if (text === undefined) return TOO_LARGE;
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  });
}

/** The body as text, or undefined past `max` bytes (reading stops, the socket stays for the reply). */
export function readBody(req: IncomingMessage, max: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) return void chunks.push(chunk);
      req.off('data', onData);
      req.pause();
      resolve(undefined);
    };
    req.on('data', onData);
    req.on('error', reject);
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}
