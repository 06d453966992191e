/**
 * Server-sent events to every open page: `event: change` with the views whose files changed,
 * and `event: subscriptions` to the pages showing the Runtime view when the runtime service's
 * listing changed. A page names its view when it connects (`/events?view=runtime`), so the
 * server knows which views are being looked at.
 * A comment line every HEARTBEAT_MS keeps proxies and idle timers from closing the stream; the
 * browser's EventSource reconnects by itself after a drop (`retry`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

const HEARTBEAT_MS = 20_000;
const RETRY_MS = 1500;

type ClientsListener = (view: string, joined: boolean) => void;

export class EventStream {
  /** Each open stream and the view its page shows. */
  private readonly clients = new Map<ServerResponse, string>();
  private readonly listeners = new Set<ClientsListener>();
  private next = 1;
  private readonly heartbeat: NodeJS.Timeout;

  constructor() {
    this.heartbeat = setInterval(() => {
      for (const res of this.clients.keys()) res.write(': keep-alive\n\n');
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  attach(req: IncomingMessage, res: ServerResponse, view = ''): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-content-type-options': 'nosniff',
    });
    res.write(`retry: ${RETRY_MS}\nevent: ready\ndata: {}\n\n`);
    this.clients.set(res, view);
    this.notify(view, true);
    req.on('close', () => {
      if (this.clients.delete(res)) this.notify(view, false);
    });
  }

  /** To every page, or only to those showing `view`. */
  send(event: string, data: unknown, view?: string): void {
    const message = `id: ${this.next++}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const [res, shown] of this.clients) if (view === undefined || shown === view) res.write(message);
  }

  get size(): number {
    return this.clients.size;
  }

  /** How many open pages show `view`. */
  watching(view: string): number {
    let n = 0;
    for (const shown of this.clients.values()) if (shown === view) n++;
    return n;
  }

  /** Calls `listener` when a page showing a view connects or leaves. */
  onClients(listener: ClientsListener): void {
    this.listeners.add(listener);
  }

  private notify(view: string, joined: boolean): void {
    for (const listener of this.listeners) listener(view, joined);
  }

  close(): void {
    clearInterval(this.heartbeat);
    this.listeners.clear();
    for (const res of this.clients.keys()) res.end();
    this.clients.clear();
  }
}
