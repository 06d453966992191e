import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { type Logger, UserError } from '../core/index.js';

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

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
const MAX_BODY = 4 * 1024 * 1024;
/** A bearer token shorter than this is guessable; refused at start. */
export const MIN_TOKEN_LENGTH = 16;

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** True for the any-address binds (every interface). */
export function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

/**
 * Checks the bind address and token before anything listens: binding beyond loopback without a
 * token would hand the mind (and its memory) to the network, and a short token is guessable.
 */
export function checkBind(host: string, token: string | undefined): void {
  if (!isLoopback(host) && !token) {
    throw new UserError(`refusing to serve on ${host} without a token`, {
      code: 'TOKEN_REQUIRED',
      hint: 'set FIRSTLIGHT_TOKEN to a long random secret, e.g. FIRSTLIGHT_TOKEN=$(openssl rand -hex 24) (clients then send "Authorization: Bearer <token>"), or bind --host 127.0.0.1',
    });
  }
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    throw new UserError(
      `FIRSTLIGHT_TOKEN is too short: ${token.length} characters, at least ${MIN_TOKEN_LENGTH} required`,
      {
        code: 'TOKEN_TOO_SHORT',
        hint: 'set FIRSTLIGHT_TOKEN to a long random secret, e.g. FIRSTLIGHT_TOKEN=$(openssl rand -hex 24)',
      },
    );
  }
}

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

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new UserError(`port ${options.port} on ${options.host} is already in use`, {
              code: 'PORT_IN_USE',
              hint: 'stop the other server or pass --port with a free port',
            })
          : error,
      );
    });
    httpServer.listen(options.port, options.host, () => resolve());
  });
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
  const address = httpServer.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
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

/** An address as the host part of a URL or Host header (IPv6 in brackets). */
function urlHost(address: string): string {
  return address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;
}

/** This machine's interface addresses (link-local IPv6 left out: its Host form needs a zone). */
function interfaceAddresses(): { address: string; internal: boolean; family: string }[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.address.toLowerCase().startsWith('fe80:'))
    .map((a) => ({ address: a!.address.toLowerCase(), internal: a!.internal, family: a!.family }));
}

/** The address to print for a wildcard bind: a real external one when there is one. */
function reachableAddress(): string {
  const external = interfaceAddresses().filter((a) => !a.internal);
  return (external.find((a) => a.family === 'IPv4') ?? external[0])?.address ?? '127.0.0.1';
}

/**
 * Host header values that name this server (DNS-rebinding defence): the bound address, or for a
 * wildcard bind every interface address; loopback names when loopback can reach it; this
 * machine's hostname off loopback; and the `--allowed-host` names. A page on evil.example that
 * rebinds its name to us still sends `Host: evil.example`, which is in none of these.
 */
function hostsFor(host: string, port: number, extra: readonly string[]): Set<string> {
  const names: string[] = [];
  if (isLoopback(host) || isWildcard(host)) names.push('127.0.0.1', 'localhost', '[::1]');
  if (isWildcard(host)) names.push(...interfaceAddresses().map((a) => urlHost(a.address)));
  else names.push(urlHost(host.toLowerCase()));
  if (!isLoopback(host)) names.push(hostname().toLowerCase());
  const withPort: string[] = [];
  for (const given of extra.map((n) => n.toLowerCase())) {
    // A bare IPv6 address gets brackets; a proxy's name:port is taken as given.
    if (!given.startsWith('[') && given.split(':').length > 2) names.push(`[${given}]`);
    else if (/:\d+$/.test(given)) withPort.push(given);
    else names.push(given);
  }
  const out = new Set(withPort);
  for (const name of names) {
    out.add(`${name}:${port}`);
    if (port === 80) out.add(name);
  }
  return out;
}

function checkRequest(
  req: IncomingMessage,
  allowedHosts: Set<string>,
  token: string | undefined,
): { status: number; message: string } | undefined {
  const host = header(req, 'host')?.toLowerCase();
  if (!host || !allowedHosts.has(host)) {
    return {
      status: 403,
      message: `forbidden: Host header "${host ?? ''}" does not name this server (start it with --allowed-host NAME to accept another name)`,
    };
  }
  const origin = header(req, 'origin');
  if (origin) {
    let originHost: string;
    try {
      originHost = new URL(origin).host.toLowerCase();
    } catch {
      return { status: 403, message: 'forbidden: malformed Origin header' };
    }
    if (!allowedHosts.has(originHost)) {
      return { status: 403, message: `forbidden: Origin "${origin}" is not allowed` };
    }
  }
  if (token !== undefined) {
    const given = /^Bearer\s+(.+)$/i.exec(header(req, 'authorization') ?? '')?.[1] ?? '';
    const a = Buffer.from(given);
    const b = Buffer.from(token);
    if (a.length !== b.length || !timingSafeEqual(a, b)) {
      return { status: 401, message: 'unauthorized: send "Authorization: Bearer <FIRSTLIGHT_TOKEN>"' };
    }
  }
  return undefined;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
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
