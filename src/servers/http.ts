import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../core/index.js';
import { MAX_REQUEST_BYTES } from './bounded-stdio.js';
import {
  checkBind,
  checkRequest,
  header,
  hostsFor,
  isWildcard,
  reachableAddress,
  urlHost,
} from './http-guard.js';
import { listen } from './listen.js';

export interface HttpOptions {
  host: string;
  port: number;
  /** Required for any non-loopback bind; when set, required as a bearer token on every request. */
  token?: string | undefined;
  /** More Host header names to accept (`--allowed-host`), e.g. a DNS name or a proxy's name. */
  allowedHosts?: readonly string[];
  log: Logger;
  /** Makes a fresh MCP server for each new session. */
  createServer: (sessionKey: string) => McpServer;
  /** Path of the MCP endpoint. */
  path?: string;
  /** A session with no request for this long is closed (its client re-initializes); default 8 hours. */
  sessionIdleMs?: number;
}

export interface RunningHttpServer {
  /** A URL a client can use: for a wildcard bind, one of this machine's real addresses. */
  url: string;
  port: number;
  /** Host header values accepted (`host:port`). */
  allowedHosts: string[];
  close(): Promise<void>;
}

/** The request size limit, the same as on stdio. */
const MAX_BODY = MAX_REQUEST_BYTES;
/**
 * Streamable HTTP with one MCP server per session. Every request passes three checks first: the
 * Host header names this server (DNS-rebinding defence), an Origin, when sent, is one of ours,
 * and the bearer token matches when one is configured.
 */
export async function serveHttp(options: HttpOptions): Promise<RunningHttpServer> {
  checkBind(options.host, options.token);
  const path = options.path ?? '/mcp';
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  // Clients that vanish without DELETE would otherwise keep their server (and its caches) forever.
  const lastSeen = new Map<string, number>();
  const idleMs = options.sessionIdleMs ?? 8 * 3600_000;
  let allowedHosts = new Set<string>();

  const httpServer: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      options.log.error(`http request failed: ${(error as Error).stack ?? error}`);
      if (!res.headersSent) reply(res, 500, 'internal error');
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refusal = checkRequest(req, allowedHosts, options.token);
    if (refusal) return reply(res, refusal.status, refusal.message);
    const url = new URL(req.url ?? '/', 'http://placeholder');
    if (url.pathname !== path) return reply(res, 404, `not found: the MCP endpoint is ${path}`);
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

  const port = await listen(httpServer, options.host, options.port);
  // Started only once listening: a failed listen (port in use) must leave no timer behind.
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
  allowedHosts = hostsFor(options.host, port, options.allowedHosts ?? []);
  return {
    url: `http://${urlHost(isWildcard(options.host) ? reachableAddress() : options.host)}:${port}${path}`,
    port,
    allowedHosts: [...allowedHosts],
    close: async () => {
      clearInterval(sweeper);
      for (const transport of sessions.values()) await transport.close().catch(() => {});
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      // Clients' keep-alive sockets would otherwise hold shutdown for seconds (their idle timeout).
      httpServer.closeAllConnections();
      await closed;
    },
  };
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

const TOO_LARGE = Symbol('too large');

/**
 * The parsed JSON body; undefined when it does not parse, TOO_LARGE past MAX_BODY (reading stops
 * there without destroying the socket, so the 413 still reaches the client).
 */
function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) return void chunks.push(chunk);
      req.off('data', onData);
      req.pause();
      resolve(TOO_LARGE);
    };
    req.on('data', onData);
    req.on('error', reject);
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        resolve(undefined);
      }
    });
  });
}
