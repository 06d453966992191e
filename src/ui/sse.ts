/**
 * Server-sent events to every open page: `event: change` with the views whose files changed.
 * A comment line every HEARTBEAT_MS keeps proxies and idle timers from closing the stream; the
 * browser's EventSource reconnects by itself after a drop (`retry`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

const HEARTBEAT_MS = 20_000;
const RETRY_MS = 1500;

export class EventStream {
  private readonly clients = new Set<ServerResponse>();
  private next = 1;
  private readonly heartbeat: NodeJS.Timeout;

  constructor() {
    this.heartbeat = setInterval(() => {
      for (const res of this.clients) res.write(': keep-alive\n\n');
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  attach(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-content-type-options': 'nosniff',
    });
    res.write(`retry: ${RETRY_MS}\nevent: ready\ndata: {}\n\n`);
    this.clients.add(res);
    req.on('close', () => this.clients.delete(res));
  }

  send(event: string, data: unknown): void {
    const message = `id: ${this.next++}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const res of this.clients) res.write(message);
  }

  get size(): number {
    return this.clients.size;
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const res of this.clients) res.end();
    this.clients.clear();
  }
}
