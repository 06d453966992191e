import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StreamRecord } from '../../runtime/index.js';

/**
 * Server-sent events from a stream read by cursor. Each record goes out as `id: SEQ`,
 * `event: NAME`, `data: JSON`; a client that reconnects with `Last-Event-ID: SEQ` (or
 * `?after=SEQ`) gets exactly the records after it, none lost, none repeated. A slow client
 * holds only its cursor: the next records are read when its socket drains.
 */
export interface CursorStream {
  read(after: number, limit?: number): Promise<StreamRecord[]>;
  wait(after: number, signal?: AbortSignal): Promise<void>;
  readonly isEnded: boolean;
  readonly lastSeq: number;
}

/** A stream that ended before this process knew it: its records are all in the ledger. */
export function endedStream(
  read: (after: number, limit: number) => Promise<StreamRecord[]>,
  lastSeq: number,
): CursorStream {
  return { read: (after, limit = 500) => read(after, limit), wait: async () => {}, isEnded: true, lastSeq };
}

/**
 * A stream another replica is writing, followed in the ledger: each read arms a wait for the
 * stream's next notice first, so a notice sent while the read is under way still wakes it;
 * after each wait, `ended()` says whether the writer is done.
 */
export function followedStream(
  read: (after: number, limit: number) => Promise<StreamRecord[]>,
  changed: (ms: number) => Promise<void>,
  ended: () => Promise<boolean>,
  lastSeq: number,
): CursorStream {
  let done = false;
  let armed: Promise<void> = Promise.resolve();
  return {
    read: (after, limit = 500) => {
      armed = changed(1000);
      return read(after, limit);
    },
    async wait(_after, signal) {
      if (signal?.aborted) return;
      let onAbort = () => {};
      const aborted = new Promise<void>((resolve) => {
        onAbort = resolve;
        signal?.addEventListener('abort', onAbort, { once: true });
      });
      await Promise.race([armed, aborted]);
      signal?.removeEventListener('abort', onAbort);
      done = await ended().catch(() => false);
    },
    get isEnded() {
      return done;
    },
    lastSeq,
  };
}

/** The cursor a reader resumes from: `Last-Event-ID`, else `?after=`, else 0 (the start). */
export function resumeCursor(req: IncomingMessage, url: URL): number {
  const raw = req.headers['last-event-id'] ?? url.searchParams.get('after') ?? '0';
  const n = Number(Array.isArray(raw) ? raw[0] : raw);
  return Number.isInteger(n) && n >= 0 ? n : 0;
}

const KEEPALIVE_MS = 15_000;

export async function serveSse(
  req: IncomingMessage,
  res: ServerResponse,
  stream: CursorStream,
  after: number,
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write('retry: 1000\n\n');
  const gone = new AbortController();
  const stop = () => gone.abort();
  req.once('close', stop);
  res.once('close', stop);
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
  keepalive.unref();
  let cursor = after;
  let ended = false;
  try {
    while (!gone.signal.aborted) {
      const records = await stream.read(cursor, 500);
      for (const record of records) {
        if (gone.signal.aborted) return;
        const ok = res.write(
          `id: ${record.seq}\nevent: ${record.event}\ndata: ${JSON.stringify(record.data)}\n\n`,
        );
        cursor = record.seq;
        if (!ok) await Promise.race([once(res, 'drain'), once(gone.signal, 'abort')]);
      }
      if (records.length > 0) continue;
      // Ended: one more read takes any record appended just before the end, then it is over.
      if (stream.isEnded) {
        if (ended) break;
        ended = true;
        continue;
      }
      await stream.wait(cursor, gone.signal);
    }
  } finally {
    clearInterval(keepalive);
    req.off('close', stop);
    if (!res.writableEnded) res.end();
  }
}
