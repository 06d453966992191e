import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from '../core/index.js';
import { checkBind, checkRequest, hostsFor, isWildcard, reachableAddress, urlHost } from './http-guard.js';
import { listen } from './listen.js';
import { mcpSessions, reply } from './mcp-sessions.js';

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

/**
 * Streamable HTTP with one MCP server per session. Every request passes three checks first: the
 * Host header names this server (DNS-rebinding defence), an Origin, when sent, is one of ours,
 * and the bearer token matches when one is configured.
 */
export async function serveHttp(options: HttpOptions): Promise<RunningHttpServer> {
  checkBind(options.host, options.token);
  const path = options.path ?? '/mcp';
  let allowedHosts = new Set<string>();
  let mcp: ReturnType<typeof mcpSessions> | undefined;

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
    await mcp!.handle(req, res);
  }

  const port = await listen(httpServer, options.host, options.port);
  // Started only once listening: a failed listen (port in use) must leave no timer behind.
  mcp = mcpSessions({
    log: options.log,
    createServer: options.createServer,
    ...(options.sessionIdleMs !== undefined ? { sessionIdleMs: options.sessionIdleMs } : {}),
  });
  allowedHosts = hostsFor(options.host, port, options.allowedHosts ?? []);
  return {
    url: `http://${urlHost(isWildcard(options.host) ? reachableAddress() : options.host)}:${port}${path}`,
    port,
    allowedHosts: [...allowedHosts],
    close: async () => {
      await mcp?.close();
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      // Clients' keep-alive sockets would otherwise hold shutdown for seconds (their idle timeout).
      httpServer.closeAllConnections();
      await closed;
    },
  };
}
