import { randomBytes } from 'node:crypto';
import type { Logger } from '../../core/index.js';
import {
  type InvocationRecord,
  type InvokeRequest,
  type InvokeResult,
  mapLimited,
  type Runtime,
  StreamLog,
  type SubstrateEvent,
} from '../../runtime/index.js';
import { errorReply } from './errors.js';
import type { Lease, PgQueue } from './pg-queue.js';
import { type CursorStream, endedStream, followedStream } from './sse.js';

/**
 * One-shot invocations as the service runs them: each recorded in the ledger (its request, its
 * state, its attempt, its result, an idempotency key when the client sent one), at most
 * `concurrency` running at once (the rest `queued`), and its substrate's events on a stream a
 * client reads by cursor (`GET /v1/invocations/:id/events`, `invoke_persona`'s progress).
 */

export interface InvocationsOptions {
  readonly runtime: Runtime;
  readonly log: Logger;
  /** Invocations running at once. */
  readonly concurrency: number;
  /** Finished invocations whose streams stay in memory (older ones are read from the ledger). */
  readonly keepStreams?: number;
  /**
   * The queue several replicas share (a Postgres store): submitted invocations go on it and
   * whichever replica's worker claims one runs it; `concurrency` is then that replica's workers.
   */
  readonly queue?: PgQueue;
}

/** What a client may ask of one invocation: a substrate by spec, never an object or a callback. */
export type Submission = Omit<InvokeRequest, 'onEvent' | 'substrate'> & { substrate?: string };

interface Accepted {
  readonly record: InvocationRecord;
  readonly created: boolean;
  readonly request: Submission;
}

export function newInvocationId(): string {
  return `inv-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** How much of a tool's output an event carries. */
const OUTPUT_CHARS = 2000;

export class Invocations {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly streams = new Map<string, StreamLog>();
  private readonly inflight = new Map<string, Promise<InvocationRecord>>();
  /** Fan-outs whose later invocations wait for a slot of their own `concurrency`. */
  private readonly fanOuts = new Set<Promise<InvocationRecord[]>>();
  private readonly keep: number;

  constructor(private readonly options: InvocationsOptions) {
    this.keep = options.keepStreams ?? 1000;
  }

  /** Invocations running, and waiting for a slot. */
  get load(): { running: number; queued: number; concurrency: number } {
    return { running: this.running, queued: this.waiting.length, concurrency: this.options.concurrency };
  }

  /**
   * Accepts an invocation and starts it (queued until a slot is free). With an idempotency key
   * the ledger already holds, nothing runs: the invocation that key started comes back.
   */
  async submit(
    request: Submission,
    options: { idempotencyKey?: string } = {},
  ): Promise<{ record: InvocationRecord; created: boolean; done: Promise<InvocationRecord> }> {
    const accepted = await this.accept(request, options.idempotencyKey);
    return { ...accepted, done: this.start(accepted) };
  }

  /**
   * Within-mode fan-out: accepts every request at once (each recorded, `queued`; key `KEY#i`
   * for the i-th), then starts at most `concurrency` of them at a time, each as it finishes
   * making room for the next — the runtime's `mapLimited`, as `invokeMany` runs them — and all
   * within the service's own limit. `done` resolves with the records in request order.
   */
  async submitMany(
    requests: readonly Submission[],
    options: { concurrency: number; idempotencyKey?: string },
  ): Promise<{ records: InvocationRecord[]; done: Promise<InvocationRecord[]> }> {
    const key = options.idempotencyKey;
    const accepted = await Promise.all(
      requests.map((request, i) => this.accept(request, key === undefined ? undefined : `${key}#${i}`)),
    );
    const done = mapLimited(accepted, options.concurrency, (one) => this.start(one));
    this.fanOuts.add(done);
    void done.finally(() => this.fanOuts.delete(done)).catch(() => {});
    return { records: accepted.map((one) => one.record), done };
  }

  /** Records an invocation (`queued`), or finds the one its idempotency key started. */
  private async accept(request: Submission, idempotencyKey: string | undefined): Promise<Accepted> {
    const now = new Date().toISOString();
    const fresh: InvocationRecord = {
      id: newInvocationId(),
      state: 'queued',
      attempt: 1,
      request: { ...request },
      ...(idempotencyKey !== undefined ? { idempotency_key: idempotencyKey } : {}),
      sessions: [],
      created: now,
      updated: now,
    };
    const { record, created } = await this.ledger.createInvocation(fresh);
    return { record, created, request };
  }

  /** Runs an accepted invocation here, or puts it on the shared queue; an existing one is awaited. */
  private async start({ record, created, request }: Accepted): Promise<InvocationRecord> {
    if (!created) return this.inflight.get(record.id) ?? this.settled(record);
    if (this.options.queue) {
      await this.options.queue.enqueue(record.id);
      return this.settled(record);
    }
    const stream = this.streamFor(record.id, 0);
    const done = this.run(record, request, stream);
    this.inflight.set(record.id, done);
    void done.finally(() => this.inflight.delete(record.id));
    return done;
  }

  async get(id: string): Promise<InvocationRecord | undefined> {
    return this.ledger.getInvocation(id);
  }

  /** The invocation's event stream, live or read back from the ledger. */
  async events(id: string): Promise<CursorStream | undefined> {
    const live = this.streams.get(id);
    if (live) return live;
    const record = await this.ledger.getInvocation(id);
    if (!record) return undefined;
    const ledger = this.ledger;
    const queue = this.options.queue;
    if (queue && (record.state === 'queued' || record.state === 'running')) {
      // Running on another replica: follow its events in the ledger, woken by its notices.
      return followedStream(
        (after, limit) => ledger.readInvocationEvents(id, after, limit),
        (ms) => queue.changed(id, ms),
        async () => {
          const now = await ledger.getInvocation(id);
          return now !== undefined && now.state !== 'queued' && now.state !== 'running';
        },
        0,
      );
    }
    return endedStream(
      (after, limit) => ledger.readInvocationEvents(id, after, limit),
      Number.MAX_SAFE_INTEGER,
    );
  }

  /** Waits for every invocation under way (at shutdown). */
  async drain(): Promise<void> {
    await this.options.queue?.close();
    await Promise.allSettled([...this.fanOuts, ...this.inflight.values()]);
  }

  /** Starts this replica's workers on the shared queue (a Postgres store). */
  async startWorkers(): Promise<void> {
    await this.options.queue?.start(async (claimed, lease) => {
      const events = await this.ledger.readInvocationEvents(claimed.id, 0, Number.MAX_SAFE_INTEGER);
      const stream = this.streamFor(claimed.id, events.at(-1)?.seq ?? 0);
      const request = claimed.request as Submission;
      const done = this.run(claimed, request, stream, lease);
      this.inflight.set(claimed.id, done);
      try {
        return await done;
      } finally {
        this.inflight.delete(claimed.id);
      }
    });
  }

  private get ledger() {
    return this.options.runtime.ledger;
  }

  private async run(
    record: InvocationRecord,
    request: Submission,
    stream: StreamLog,
    lease?: Lease,
  ): Promise<InvocationRecord> {
    // On the shared queue the claim made it `running`, and the queue's workers are the slots.
    if (!lease) {
      // A store away for a moment must not end the process: the record says where it stands.
      stream.append([{ event: 'state', data: { state: 'queued' } }]).catch(() => {});
      await this.slot();
    }
    let current: InvocationRecord = { ...record, state: 'running', updated: new Date().toISOString() };
    try {
      if (!lease) await this.ledger.updateInvocation(current);
      stream
        .append([
          {
            event: 'state',
            data: {
              state: 'running',
              attempt: current.attempt,
              ...(current.reason ? { reason: current.reason } : {}),
            },
          },
        ])
        .catch(() => {});
      const result = await this.options.runtime.invoke({
        ...request,
        invocation: {
          id: current.id,
          attempt: current.attempt,
          ...(current.reason ? { reason: current.reason } : {}),
        },
        onEvent: (event) => void stream.append([streamEvent(event)]).catch(() => {}),
      });
      current = {
        ...current,
        state: result.status,
        sessions: [...current.sessions, result.meta.session_id],
        result,
        updated: new Date().toISOString(),
      };
    } catch (error) {
      // Bad usage (an unknown persona, a profile that does not load) ends the invocation too:
      // its result is the error reply, with the status the door answers.
      const reply = errorReply(error);
      if (reply.status >= 500)
        this.options.log.error(`invocation ${record.id}: ${(error as Error).stack ?? error}`);
      current = {
        ...current,
        state: 'failed',
        result: { ...reply.body, status: reply.status },
        updated: new Date().toISOString(),
      };
    } finally {
      if (!lease) this.release();
    }
    // The result goes on the stream before the record ends, so a reader that sees the end has it.
    await stream.append([{ event: 'result', data: current.result }]);
    stream.end();
    await stream.flushed();
    if (lease) await lease.finish(current);
    else await this.ledger.updateInvocation(current);
    return current;
  }

  private async settled(record: InvocationRecord): Promise<InvocationRecord> {
    // Claimed by another process (a shared store) or finished before: wait for its end.
    const queue = this.options.queue;
    let next: Promise<unknown> = Promise.resolve();
    for (let current = record; ; ) {
      if (current.state !== 'queued' && current.state !== 'running') return current;
      await next;
      // Listen before reading, so a notice sent while the read is under way is not missed.
      next = queue ? queue.changed(record.id, 2000) : new Promise((resolve) => setTimeout(resolve, 100));
      // The database away for a moment: keep waiting (the invocation is not lost).
      current = (await this.ledger.getInvocation(record.id).catch(() => undefined)) ?? current;
    }
  }

  private streamFor(id: string, lastSeq: number): StreamLog {
    const ledger = this.ledger;
    const queue = this.options.queue;
    const stream = new StreamLog({
      persist: async (records) => {
        await ledger.appendInvocationEvents(id, records);
        await queue?.notify(id);
      },
      readBack: (after, limit) => ledger.readInvocationEvents(id, after, limit),
      keep: 512,
      lastSeq,
    });
    this.streams.set(id, stream);
    // Bounded: the oldest finished streams leave memory (their events stay in the ledger).
    for (const [key, old] of this.streams) {
      if (this.streams.size <= this.keep) break;
      if (old.isEnded) this.streams.delete(key);
    }
    return stream;
  }

  private slot(): Promise<void> {
    if (this.running < this.options.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}

/** A substrate event as a stream record: a denial named as one, long outputs cut. */
function streamEvent(event: SubstrateEvent): { event: string; data: unknown } {
  switch (event.type) {
    case 'tool_result': {
      const { type: _, ...rest } = event;
      const output =
        rest.output.length > OUTPUT_CHARS ? `${rest.output.slice(0, OUTPUT_CHARS)}…` : rest.output;
      return rest.denied
        ? { event: 'denial', data: { id: rest.id, tool: rest.name, reason: rest.denied.reason } }
        : { event: 'tool_result', data: { ...rest, output } };
    }
    case 'error': {
      const { type: _, ...rest } = event;
      return { event: 'substrate_error', data: rest };
    }
    default: {
      const { type, ...rest } = event;
      return { event: type, data: rest };
    }
  }
}

export type { InvokeResult };
