import { randomBytes } from 'node:crypto';
import type { Logger } from '../../core/index.js';
import {
  type InvocationRecord,
  type InvokeRequest,
  type InvokeResult,
  type Runtime,
  StreamLog,
  type SubstrateEvent,
} from '../../runtime/index.js';
import { errorReply } from './errors.js';
import { type CursorStream, endedStream } from './sse.js';

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
    request: Omit<InvokeRequest, 'onEvent' | 'substrate'> & { substrate?: string },
    options: { idempotencyKey?: string } = {},
  ): Promise<{ record: InvocationRecord; created: boolean; done: Promise<InvocationRecord> }> {
    const now = new Date().toISOString();
    const fresh: InvocationRecord = {
      id: newInvocationId(),
      state: 'queued',
      attempt: 1,
      request: { ...request },
      ...(options.idempotencyKey !== undefined ? { idempotency_key: options.idempotencyKey } : {}),
      sessions: [],
      created: now,
      updated: now,
    };
    const { record, created } = await this.ledger.createInvocation(fresh);
    if (!created) return { record, created, done: this.inflight.get(record.id) ?? this.settled(record) };
    const stream = this.streamFor(record.id, 0);
    const done = this.run(record, request, stream);
    this.inflight.set(record.id, done);
    void done.finally(() => this.inflight.delete(record.id));
    return { record, created, done };
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
    return endedStream(
      (after, limit) => ledger.readInvocationEvents(id, after, limit),
      Number.MAX_SAFE_INTEGER,
    );
  }

  /** Waits for every invocation under way (at shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inflight.values()]);
  }

  private get ledger() {
    return this.options.runtime.ledger;
  }

  private async run(
    record: InvocationRecord,
    request: Omit<InvokeRequest, 'onEvent' | 'substrate'> & { substrate?: string },
    stream: StreamLog,
  ): Promise<InvocationRecord> {
    void stream.append([{ event: 'state', data: { state: 'queued' } }]);
    await this.slot();
    let current: InvocationRecord = { ...record, state: 'running', updated: new Date().toISOString() };
    try {
      await this.ledger.updateInvocation(current);
      void stream.append([{ event: 'state', data: { state: 'running', attempt: current.attempt } }]);
      const result = await this.options.runtime.invoke({
        ...request,
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
      this.release();
    }
    await this.ledger.updateInvocation(current);
    await stream.append([{ event: 'result', data: current.result }]);
    stream.end();
    await stream.flushed();
    return current;
  }

  private async settled(record: InvocationRecord): Promise<InvocationRecord> {
    // Claimed by another process (a shared store) or finished before: wait for its end.
    for (let current = record; ; ) {
      if (current.state !== 'queued' && current.state !== 'running') return current;
      await new Promise((resolve) => setTimeout(resolve, 100));
      current = (await this.ledger.getInvocation(record.id)) ?? current;
    }
  }

  private streamFor(id: string, lastSeq: number): StreamLog {
    const ledger = this.ledger;
    const stream = new StreamLog({
      persist: (records) => ledger.appendInvocationEvents(id, records),
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
