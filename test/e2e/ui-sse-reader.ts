/**
 * A page's event stream read as the browser's EventSource would: `readEvents(url)` connects,
 * resolves once the server said `ready`, and collects every event by name; `next(name, after)`
 * waits for the (after+1)-th event of that name.
 */
import { type ClientRequest, request } from 'node:http';

export interface EventReader {
  /** How many events of `name` came so far. */
  count(name: string): number;
  /** Resolves when more than `after` events of `name` came (default: the first one). */
  next(name: string, after?: number, timeoutMs?: number): Promise<void>;
  close(): void;
}

export function readEvents(url: string, headers: Record<string, string> = {}): Promise<EventReader> {
  const counts = new Map<string, number>();
  const waiters = new Set<() => void>();
  let req: ClientRequest;
  return new Promise((resolve, reject) => {
    req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`${url} answered ${res.statusCode}`));
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const name = /^event: (.*)$/m.exec(block)?.[1];
          if (!name) continue;
          counts.set(name, (counts.get(name) ?? 0) + 1);
          for (const wake of waiters) wake();
          if (name === 'ready') resolve(reader);
        }
      });
    });
    req.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(error);
    });
    req.end();
    const reader: EventReader = {
      count: (name) => counts.get(name) ?? 0,
      next: (name, after = 0, timeoutMs = 30_000) =>
        new Promise<void>((done, fail) => {
          const check = () => {
            if ((counts.get(name) ?? 0) <= after) return;
            clearTimeout(timer);
            waiters.delete(check);
            done();
          };
          const timer = setTimeout(() => {
            waiters.delete(check);
            fail(new Error(`no event "${name}" past ${after} on ${url} within ${timeoutMs} ms`));
          }, timeoutMs);
          waiters.add(check);
          check();
        }),
      close: () => req.destroy(),
    };
  });
}
