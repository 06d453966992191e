import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Logger } from '../../core/index.js';
import type { Runtime } from '../../runtime/index.js';
import { checkBind, checkRequest, hostsFor, isWildcard, reachableAddress, urlHost } from '../http-guard.js';
import { listen } from '../listen.js';
import { mcpSessions } from '../mcp-sessions.js';
import type { DoorPolicy } from './door-policy.js';
import { ApiError, sendError, sendJson } from './errors.js';
import { Invocations } from './invocations.js';
import { createRuntimeMcpServer } from './mcp.js';
import { openApiDocument } from './openapi.js';
import type { PgQueue } from './pg-queue.js';
import type { PgRelay } from './pg-relay.js';
import { ROUTES, type Route, type ServiceDeps } from './routes.js';
import { Subscriptions } from './subscriptions.js';

/**
 * `firstlight runtime serve`: one HTTP server, two doors onto one runtime — the HTTP API under
 * `/v1/` and MCP (streamable HTTP) at `/mcp`. Bind, token, Host and Origin as for `serve
 * --http`: loopback by default, a token required for any other bind, every request's Host (and
 * Origin, when sent) checked, the bearer token when one is set. Shutdown tears every open
 * subscription down (journaled) and lets running invocations finish.
 */
export interface RuntimeServiceOptions {
  readonly runtime: Runtime;
  readonly host: string;
  readonly port: number;
  readonly token?: string | undefined;
  readonly allowedHosts?: readonly string[];
  readonly log: Logger;
  /** One-shot invocations running at once. */
  readonly concurrency: number;
  /** Subscriptions with no event for this long are torn down. */
  readonly subscriptionIdleMs: number;
  /** MCP sessions with no request for this long are closed. */
  readonly sessionIdleMs?: number;
  /** The queue replicas share (a Postgres store); absent: invocations run in this process. */
  readonly queue?: PgQueue;
  /** Subscriptions across replicas (a Postgres store). */
  readonly relay?: PgRelay;
  /** What requests may ask for (runtime.service: allow_override, servers); default neither. */
  readonly policy?: DoorPolicy;
}

export interface RunningRuntimeService {
  /** The service's base URL (`http://127.0.0.1:7822`). */
  readonly url: string;
  readonly port: number;
  readonly allowedHosts: readonly string[];
  readonly deps: ServiceDeps;
  /** Tears subscriptions down (journaled `shutdown`), waits for invocations, stops listening. */
  close(): Promise<void>;
}

interface Compiled {
  readonly route: Route;
  readonly pattern: RegExp;
  readonly names: readonly string[];
}

function compile(routes: readonly Route[]): Compiled[] {
  return routes.map((route) => {
    const names: string[] = [];
    const source = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    return { route, pattern: new RegExp(`^${source}$`), names };
  });
}

export async function startRuntimeService(options: RuntimeServiceOptions): Promise<RunningRuntimeService> {
  checkBind(options.host, options.token);
  const { runtime, log } = options;
  const invocations = new Invocations({
    runtime,
    log,
    concurrency: options.concurrency,
    ...(options.queue ? { queue: options.queue } : {}),
  });
  await invocations.startWorkers();
  const subscriptions = new Subscriptions({
    runtime,
    log,
    idleMs: options.subscriptionIdleMs,
    ...(options.relay ? { relay: options.relay } : {}),
  });
  await subscriptions.startRelay();
  const policy = options.policy ?? { allowOverride: false, servers: {} };
  const deps: ServiceDeps = { runtime, invocations, subscriptions, log, policy };
  const compiled = compile(ROUTES);
  const openapi = openApiDocument(ROUTES);
  let allowedHosts = new Set<string>();
  const mcp = mcpSessions({
    log,
    createServer: () => createRuntimeMcpServer(deps),
    ...(options.sessionIdleMs !== undefined ? { sessionIdleMs: options.sessionIdleMs } : {}),
  });
  let closing = false;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://placeholder');
    const refusal = checkRequest(req, allowedHosts, options.token);
    if (refusal) {
      const code = refusal.status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN';
      const fix =
        refusal.status === 401
          ? 'send "Authorization: Bearer <FIRSTLIGHT_TOKEN>"'
          : 'call the service by a name it serves (start it with --allowed-host NAME for another), from no foreign Origin';
      if (url.pathname === '/mcp') {
        res.writeHead(refusal.status, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: refusal.message }, id: null }),
        );
        return;
      }
      return sendJson(res, refusal.status, { error: { code, message: refusal.message, fix } });
    }
    if (url.pathname === '/mcp') return mcp.handle(req, res);
    if (closing)
      throw new ApiError(503, 'SHUTTING_DOWN', 'the service is shutting down', 'try again when it is back');
    if (req.method === 'GET' && url.pathname === '/v1/openapi.json') return sendJson(res, 200, openapi);
    let pathMatched = false;
    for (const { route, pattern, names } of compiled) {
      const match = pattern.exec(url.pathname);
      if (!match) continue;
      pathMatched = true;
      if (route.method !== req.method) continue;
      const params = Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)]));
      return route.handle({ req, res, url, params, deps });
    }
    if (pathMatched) {
      const allowed = compiled.filter((c) => c.pattern.test(url.pathname)).map((c) => c.route.method);
      res.setHeader('allow', allowed.join(', '));
      throw new ApiError(
        405,
        'METHOD_NOT_ALLOWED',
        `${req.method} is not allowed on ${url.pathname}`,
        `use ${allowed.join(' or ')}`,
      );
    }
    throw new ApiError(
      404,
      'NOT_FOUND',
      `no route ${url.pathname}`,
      'the routes are in GET /v1/openapi.json; MCP is at /mcp',
    );
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!(error instanceof ApiError) && !(error as { code?: string }).code)
        log.error(`request ${req.method} ${req.url} failed: ${(error as Error).stack ?? error}`);
      if (res.headersSent) {
        res.end();
        return;
      }
      sendError(res, error);
    });
  });
  const port = await listen(server, options.host, options.port);
  allowedHosts = hostsFor(options.host, port, options.allowedHosts ?? []);
  return {
    url: `http://${urlHost(isWildcard(options.host) ? reachableAddress() : options.host)}:${port}`,
    port,
    allowedHosts: [...allowedHosts],
    deps,
    async close() {
      closing = true;
      await subscriptions.closeAll();
      await invocations.drain();
      await options.relay?.close();
      await mcp.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Open event streams and keep-alive sockets would otherwise hold shutdown open.
      server.closeAllConnections();
      await closed;
    },
  };
}
