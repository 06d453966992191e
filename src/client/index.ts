/**
 * @module client — `import { RuntimeClient } from 'firstlight/client'`: a typed client of the
 * runtime service's HTTP door (`firstlight runtime serve`), on the platform's `fetch`. It loads
 * nothing of the runtime itself (its types only), so a consumer process stays small.
 *
 *   const client = new RuntimeClient({ url: 'http://127.0.0.1:7822' }); // the token: found, see below
 *   const result = await client.invoke({ persona: 'auditor', role: 'validator', surface: 'audit',
 *     engagement: 'agent', task: 'Validate the cache', handoffs: [artifactId] });
 *   if (result.status === 'refused') console.log(result.meta.refusal_reason);
 */

import { homedir } from 'node:os';
import { join } from 'node:path';
import { findServerToken } from '../core/server-tokens.js';
import type {
  InvocationRecord,
  InvokeResult,
  JournalEntry,
  ProfileListing,
  ProfileSource,
  StreamRecord,
} from '../runtime/index.js';
import type {
  EventsBody,
  InvocationBody,
  SubscriptionBody,
  SubscriptionSummary,
} from '../servers/runtime-service/index.js';

export type {
  InvocationRecord,
  InvokeResult,
  JournalEntry,
  ProfileListing,
  StreamRecord,
  SubscriptionSummary,
};

/** One invocation's request: the JSON of `invoke --json` (one `task`). */
export type InvocationInput = Omit<InvocationBody, 'tasks' | 'concurrency'> & { task: string };
/** Within-mode fan-out: the same request for each of `tasks`. */
export type FanOutInput = Omit<InvocationBody, 'task'> & { tasks: string[] };
export type SubscriptionInput = SubscriptionBody;
/** One event for a subscription. */
export type EventInput = Exclude<EventsBody, { events: unknown }>;

export interface RuntimeClientOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:7822`. */
  readonly url: string;
  /**
   * The service's token. Default: the one the service keeps in the home's `run/` for its URL
   * (`runtime serve` generates one at start, or takes FIRSTLIGHT_TOKEN), else FIRSTLIGHT_TOKEN.
   */
  readonly token?: string;
  /** The firstlight home the service runs on (its `run/` holds the token); default FIRSTLIGHT_HOME, else ~/.firstlight. */
  readonly home?: string;
  /** A fetch to use instead of the global one. */
  readonly fetch?: typeof fetch;
}

/** An answer other than success: the service's `{error: {code, message, fix}}` and the status. */
export class RuntimeClientError extends Error {
  override readonly name = 'RuntimeClientError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fix: string | undefined,
    /** The whole body (a 429 carries `accepted`, `rejected` and `counts`). */
    readonly body: Record<string, unknown>,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

/** One server-sent event: its id (the cursor), its name (a channel, `result`, `end`, …) and data. */
export interface ServerEvent<T = unknown> {
  readonly id: number;
  readonly event: string;
  readonly data: T;
}

export interface StreamOptions {
  /** Resume after this event id (what the last one seen said). */
  readonly after?: number;
  readonly signal?: AbortSignal;
  /** Reconnect (with Last-Event-ID) when the connection drops before the stream ends; default true. */
  readonly reconnect?: boolean;
}

export class RuntimeClient {
  private readonly base: string;
  private readonly doFetch: typeof fetch;
  private readonly token: string | undefined;

  constructor(options: RuntimeClientOptions) {
    this.base = options.url.replace(/\/+$/, '');
    this.doFetch = options.fetch ?? fetch;
    this.token = options.token ?? foundToken(this.base, options.home);
  }

  health(): Promise<{ ok: boolean; version: string; ledger: string; invocations: Record<string, number> }> {
    return this.json('GET', '/v1/health');
  }

  /**
   * Runs one invocation and returns its result, refused ones included (the service answers
   * those 422: `result.meta.refusal_reason` says why). Bad usage throws RuntimeClientError.
   */
  async invoke(
    request: InvocationInput,
    options: { idempotencyKey?: string; signal?: AbortSignal } = {},
  ): Promise<InvokeResult> {
    try {
      return await this.json<InvokeResult>('POST', '/v1/invocations', request, idempotency(options));
    } catch (error) {
      if (error instanceof RuntimeClientError && error.status === 422 && error.body.result)
        return error.body.result as InvokeResult;
      throw error;
    }
  }

  /** Within-mode fan-out: one invocation per task, results in task order. */
  invokeMany(
    request: FanOutInput,
    options: { idempotencyKey?: string } = {},
  ): Promise<{ invocations: string[]; results: InvokeResult[] }> {
    return this.json('POST', '/v1/invocations', request, idempotency(options));
  }

  /** Starts an invocation without waiting (`Prefer: respond-async`); follow it with `events` or `invocation`. */
  submit(
    request: InvocationInput,
    options: { idempotencyKey?: string } = {},
  ): Promise<{ id: string; state: string; links: { self: string; events: string } }> {
    return this.json('POST', '/v1/invocations', request, {
      ...idempotency(options),
      prefer: 'respond-async',
    });
  }

  invocation(id: string): Promise<InvocationRecord> {
    return this.json('GET', `/v1/invocations/${encodeURIComponent(id)}`);
  }

  /** An invocation's events (state, text, tool_call, tool_result, denial, usage, result), until its result. */
  events(id: string, options: StreamOptions = {}): AsyncGenerator<ServerEvent> {
    return this.stream(`/v1/invocations/${encodeURIComponent(id)}/events`, options);
  }

  subscribe(request: SubscriptionInput): Promise<SubscriptionSummary> {
    return this.json('POST', '/v1/subscriptions', request);
  }

  async subscriptions(options: { all?: boolean } = {}): Promise<SubscriptionSummary[]> {
    const body = await this.json<{ subscriptions: SubscriptionSummary[] }>(
      'GET',
      `/v1/subscriptions${options.all ? '?state=all' : ''}`,
    );
    return body.subscriptions;
  }

  subscription(id: string): Promise<SubscriptionSummary> {
    return this.json('GET', `/v1/subscriptions/${encodeURIComponent(id)}`);
  }

  /**
   * Sends events. Under the `queue` policy a full buffer answers 429: this throws
   * RuntimeClientError with `body.accepted`, `body.rejected` (the events at the end of the
   * batch that were refused) and `body.counts`.
   */
  send(
    id: string,
    events: EventInput | readonly EventInput[],
  ): Promise<{ accepted: number; rejected: number; counts: SubscriptionSummary['counts'] }> {
    const body = Array.isArray(events) ? { events } : events;
    return this.json('POST', `/v1/subscriptions/${encodeURIComponent(id)}/events`, body);
  }

  /** A subscription's emissions (event name = channel), until `end`; reconnects with Last-Event-ID. */
  emissions(id: string, options: StreamOptions = {}): AsyncGenerator<ServerEvent> {
    return this.stream(`/v1/subscriptions/${encodeURIComponent(id)}/stream`, options);
  }

  teardown(id: string): Promise<SubscriptionSummary> {
    return this.json('DELETE', `/v1/subscriptions/${encodeURIComponent(id)}`);
  }

  personas(): Promise<{ personas: ProfileListing[]; sources: ProfileSource[] }> {
    return this.json('GET', '/v1/personas');
  }

  async journal(
    query: { since?: string; type?: string; session?: string; limit?: number } = {},
  ): Promise<JournalEntry[]> {
    const params = new URLSearchParams(
      Object.entries(query).flatMap(([k, v]) => (v === undefined ? [] : [[k, String(v)]])),
    );
    const body = await this.json<{ entries: JournalEntry[] }>(
      'GET',
      `/v1/journal${params.size > 0 ? `?${params}` : ''}`,
    );
    return body.entries;
  }

  handoff(id: string): Promise<{
    handoff: Record<string, unknown>;
    sha256: string;
    verified: boolean;
    provenance?: unknown;
    problem?: string;
  }> {
    return this.json('GET', `/v1/handoffs/${encodeURIComponent(id)}`);
  }

  openapi(): Promise<Record<string, unknown>> {
    return this.json('GET', '/v1/openapi.json');
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      accept: 'application/json',
      ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      ...extra,
    };
  }

  private async json<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    const response = await this.doFetch(`${this.base}${path}`, {
      method,
      headers: this.headers(
        body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? {} : JSON.parse(text);
    } catch {
      throw new RuntimeClientError(
        response.status,
        'NOT_JSON',
        `the service answered ${text.slice(0, 200)}`,
        undefined,
        {},
      );
    }
    if (!response.ok) throw errorFrom(response.status, parsed);
    return parsed as T;
  }

  /** Server-sent events from `path`, reconnecting after the last id seen until the stream ends. */
  private async *stream(path: string, options: StreamOptions): AsyncGenerator<ServerEvent> {
    let after = options.after ?? 0;
    const reconnect = options.reconnect ?? true;
    for (;;) {
      let ended = false;
      try {
        const response = await this.doFetch(`${this.base}${path}`, {
          headers: this.headers({ accept: 'text/event-stream', 'last-event-id': String(after) }),
          ...(options.signal ? { signal: options.signal } : {}),
        });
        if (!response.ok || !response.body)
          throw errorFrom(response.status, await response.json().catch(() => ({})));
        for await (const event of parseSse(response.body)) {
          after = event.id;
          yield event;
          if (event.event === 'end' || event.event === 'result') ended = true;
        }
        // The server closes an ended stream after its last record.
        if (ended || !reconnect) return;
      } catch (error) {
        if (options.signal?.aborted || !reconnect || error instanceof RuntimeClientError) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** The token the service at `url` keeps in the home's run/, else FIRSTLIGHT_TOKEN. */
function foundToken(url: string, home: string | undefined): string | undefined {
  const dir = home ?? (process.env.FIRSTLIGHT_HOME || join(homedir(), '.firstlight'));
  return findServerToken(dir, url) ?? (process.env.FIRSTLIGHT_TOKEN || undefined);
}

function idempotency(options: { idempotencyKey?: string }): Record<string, string> {
  return options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {};
}

function errorFrom(status: number, body: unknown): RuntimeClientError {
  const b = (body ?? {}) as { error?: { code?: string; message?: string; fix?: string } };
  return new RuntimeClientError(
    status,
    b.error?.code ?? `HTTP_${status}`,
    b.error?.message ?? `the service answered ${status}`,
    b.error?.fix,
    (body ?? {}) as Record<string, unknown>,
  );
}

/** Parses a text/event-stream body into events (comments and `retry:` skipped). */
export async function* parseSse(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let id = 0;
  let event = 'message';
  let data: string[] = [];
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (line === '') {
          if (data.length > 0) yield { id, event, data: JSON.parse(data.join('\n')) };
          event = 'message';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = Number(value);
        else if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
    }
  } finally {
    reader.releaseLock();
  }
}
