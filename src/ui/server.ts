/**
 * The HTTP server of `firstlight ui`: the guard on every request, the pages, the writes, the
 * static assets, and the server-sent event stream that tells open pages which views changed.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isFirstlightError, type Logger } from '../core/index.js';
import { checkBind, hostsFor, isWildcard, listen, reachableAddress, urlHost } from '../servers/index.js';
import { forget, restore, review, saveEdit, statusOf } from './actions.js';
import { type Asset, loadAssets } from './assets.js';
import type { UiContext } from './context.js';
import { UiGuard } from './guard.js';
import { decodePart, type Html } from './html.js';
import type { LiveChanges } from './live.js';
import { errorPage, loginPage, memoryAgain, type PageDeps, renderPage } from './pages.js';
import { serviceStatus } from './runtime-service.js';
import { ServiceWatch } from './runtime-watch.js';
import { EventStream } from './sse.js';
import { HostsReports } from './views/hosts.js';

export interface UiServerOptions {
  host: string;
  port: number;
  /** Required off loopback; when set, every request carries it (header or sign-in cookie). */
  token: string | undefined;
  allowedHosts: readonly string[];
  context: UiContext;
  live: LiveChanges;
  /** How often a runtime service is asked while a Runtime page is open (default a second). */
  runtimePollMs?: number;
  log: Logger;
}

export interface RunningUi {
  url: string;
  port: number;
  allowedHosts: string[];
  close(): Promise<void>;
}

/** Form bodies above this are refused: a memory is at most 1 MiB, and its form carries it once. */
const MAX_FORM_BYTES = 2 * 1024 * 1024;

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  // same-origin, not no-referrer: under no-referrer Chromium sends `Origin: null` with the page's own form posts.
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

export async function startUiServer(options: UiServerOptions): Promise<RunningUi> {
  checkBind(options.host, options.token);
  const { context, log } = options;
  const guard = new UiGuard(options.token);
  const assets = loadAssets();
  const hosts = new HostsReports(context);
  const stream = new EventStream();
  // The runtime service's subscriptions change without a file changing: asked while a page looks.
  const service = context.runtimeUrl
    ? new ServiceWatch({
        url: context.runtimeUrl,
        token: context.runtimeToken,
        ...(options.runtimePollMs ? { intervalMs: options.runtimePollMs } : {}),
        onChange: () => stream.send('subscriptions', {}, 'runtime'),
        log,
      })
    : undefined;
  const deps: PageDeps = {
    context,
    csrf: guard.csrf,
    hosts,
    service: async () => service?.recent() ?? (await serviceStatus(context.runtimeUrl, context.runtimeToken)),
  };
  const unsubscribe = options.live.onChange((views) => {
    if (views.includes('hosts')) hosts.drop();
    stream.send('change', { views });
  });
  stream.onClients((view, joined) => {
    if (!service || view !== 'runtime') return;
    if (joined) service.wake();
    else if (stream.watching('runtime') === 0) service.sleep();
  });

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log.error(`ui request ${req.method} ${req.url} failed: ${(error as Error).stack ?? error}`);
      if (!res.headersSent) sendHtml(res, 500, errorPage(deps, 500, (error as Error).message));
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const hostRefusal = guard.checkHost(req);
    if (hostRefusal) return sendText(res, hostRefusal.status, hostRefusal.message);
    const url = new URL(req.url ?? '/', 'http://placeholder');
    const path = url.pathname;
    if (path === '/login') return login(req, res);
    const tokenRefusal = guard.checkToken(req);
    if (tokenRefusal) {
      if (req.method === 'GET' && accepts(req, 'text/html')) return sendHtml(res, 401, loginPage());
      return sendText(res, tokenRefusal.status, tokenRefusal.message);
    }
    if (req.method === 'POST') return write(req, res, path);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD, POST');
      return sendText(res, 405, 'method not allowed');
    }
    if (path === '/events') return stream.attach(req, res, url.searchParams.get('view') ?? '');
    if (path.startsWith('/assets/')) return sendAsset(req, res, assets.get(path.slice('/assets/'.length)));
    // The address a refused edit was answered at: reloading it shows the memory again.
    const posted = /^(\/memory\/m\/[^/]+)\/(edit|forget)$/.exec(path);
    if (posted) {
      res.writeHead(303, { location: posted[1]!, ...SECURITY_HEADERS });
      return void res.end();
    }
    try {
      const rendered = await renderPage(deps, path, url.searchParams);
      if (!rendered)
        return sendHtml(
          res,
          404,
          errorPage(deps, 404, `nothing at ${path}`, 'use the views in the navigation'),
        );
      sendHtml(res, rendered.status, rendered.body);
    } catch (error) {
      if (!isFirstlightError(error)) throw error;
      sendHtml(res, statusOf(error), errorPage(deps, statusOf(error), error.message, error.hint));
    }
  }

  async function write(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const form = await readForm(req);
    if (typeof form === 'number')
      return sendText(
        res,
        form,
        form === 413 ? 'form too large' : 'send a form (application/x-www-form-urlencoded)',
      );
    const refusal = guard.checkWrite(req, form);
    if (refusal) return sendText(res, refusal.status, refusal.message);
    const memory = /^\/memory\/m\/([^/]+)\/(edit|forget)$/.exec(path);
    try {
      const result = memory
        ? memory[2] === 'edit'
          ? await saveEdit(context, decodePart(memory[1]!), form)
          : await forget(context, decodePart(memory[1]!))
        : path === '/memory/restore'
          ? await restore(context, form)
          : path === '/captured/accept' || path === '/captured/reject'
            ? await review(context, path === '/captured/accept' ? 'accept' : 'reject', form)
            : undefined;
      if (!result) return sendText(res, 404, `nothing to post to at ${path}`);
      // Watchers see the files soon; the page that wrote them should not wait for it.
      options.live.touch(['memory', 'wakeup', 'captured']);
      if (result.kind === 'redirect') {
        res.writeHead(303, { location: result.location, ...SECURITY_HEADERS });
        return void res.end();
      }
      sendHtml(res, result.status, memoryAgain(deps, result.file, result.problem));
    } catch (error) {
      if (!isFirstlightError(error)) throw error;
      sendHtml(res, statusOf(error), errorPage(deps, statusOf(error), error.message, error.hint));
    }
  }

  async function login(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!guard.needsToken) {
      res.writeHead(303, { location: '/' });
      return void res.end();
    }
    if (req.method !== 'POST') return sendHtml(res, 401, loginPage());
    const form = await readForm(req);
    if (typeof form === 'number') return sendText(res, form, 'send the sign-in form');
    const refusal = guard.checkSameOrigin(req);
    if (refusal) return sendText(res, refusal.status, refusal.message);
    const cookie = guard.signIn(form.get('token') ?? '');
    if (!cookie) return sendHtml(res, 401, loginPage('That is not the token this server was started with.'));
    res.writeHead(303, { location: '/', 'set-cookie': cookie, ...SECURITY_HEADERS });
    res.end();
  }

  const port = await listen(server, options.host, options.port);
  guard.allowedHosts = hostsFor(options.host, port, options.allowedHosts);
  return {
    url: `http://${urlHost(isWildcard(options.host) ? reachableAddress() : options.host)}:${port}/`,
    port,
    allowedHosts: [...guard.allowedHosts],
    close: async () => {
      unsubscribe();
      service?.sleep();
      stream.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}

function accepts(req: IncomingMessage, type: string): boolean {
  const accept = req.headers.accept ?? '';
  return accept === '' || accept.includes(type) || accept.includes('*/*');
}

function sendHtml(res: ServerResponse, status: number, body: Html): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    ...SECURITY_HEADERS,
  });
  res.end(body.text);
}

function sendText(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
  res.end(`${message}\n`);
}

function sendAsset(req: IncomingMessage, res: ServerResponse, asset: Asset | undefined): void {
  if (!asset) return void sendText(res, 404, 'no such asset');
  if (req.headers['if-none-match'] === asset.etag) {
    res.writeHead(304, { etag: asset.etag });
    return void res.end();
  }
  res.writeHead(200, {
    'content-type': asset.type,
    'content-length': asset.body.length,
    'cache-control': 'no-cache',
    etag: asset.etag,
    ...SECURITY_HEADERS,
  });
  res.end(req.method === 'HEAD' ? undefined : asset.body);
}

/** The urlencoded form, or the status refusing it (413 too large, 415 another type). */
function readForm(req: IncomingMessage): Promise<URLSearchParams | number> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    req.resume();
    return Promise.resolve(415);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_FORM_BYTES) return void chunks.push(chunk);
      req.off('data', onData);
      req.resume();
      resolve(413);
    };
    req.on('data', onData);
    req.on('error', reject);
    req.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
  });
}
