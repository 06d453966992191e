import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as z from 'zod';
import type { Logger } from '../../core/index.js';
import {
  type InvokeResult,
  listProfiles,
  type Runtime,
  type SubscribeRequest,
  sourcesOf,
} from '../../runtime/index.js';
import { MAX_REQUEST_BYTES } from '../bounded-stdio.js';
import { header } from '../http-guard.js';
import { readBody } from '../mcp-sessions.js';
import { packageVersion } from '../version.js';
import { admit, type DoorPolicy } from './door-policy.js';
import { ApiError, invalidRequest, sendJson } from './errors.js';
import type { Invocations, Submission } from './invocations.js';
import { readHandoffChecked, readJournalRows } from './reads.js';
import { refusalError } from './refusals.js';
import {
  eventsRequest,
  type InvocationBody,
  invocationRequest,
  journalQuery,
  subscriptionRequest,
  subscriptionsQuery,
} from './schemas.js';
import { resumeCursor, serveSse } from './sse.js';
import type { Subscriptions } from './subscriptions.js';

/**
 * The HTTP door's routes, as data: each names its method, path, request schemas and responses
 * (the OpenAPI document is built from this table) and its handler.
 */

export interface ServiceDeps {
  readonly runtime: Runtime;
  readonly invocations: Invocations;
  readonly subscriptions: Subscriptions;
  readonly log: Logger;
  /** What a request through the doors may ask for (override, servers), from the settings at start. */
  readonly policy: DoorPolicy;
}

export interface RouteContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  readonly params: Readonly<Record<string, string>>;
  readonly deps: ServiceDeps;
}

export interface Route {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** OpenAPI form: `/v1/invocations/{id}`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly body?: z.ZodType;
  readonly query?: z.ZodObject;
  /** Status → description; `sse` marks an event stream. */
  readonly responses: Readonly<Record<string, string>>;
  readonly sse?: boolean;
  readonly tags: readonly string[];
  handle(ctx: RouteContext): Promise<void>;
}

/** The body parsed and validated against `schema` (400 naming the field, 413 past the limit). */
export async function bodyOf<T>(ctx: RouteContext, schema: z.ZodType<T>): Promise<T> {
  const text = await readBody(ctx.req, MAX_REQUEST_BYTES);
  if (text === undefined) {
    ctx.res.setHeader('connection', 'close');
    throw new ApiError(
      413,
      'TOO_LARGE',
      `request body over ${MAX_REQUEST_BYTES} bytes`,
      'send less at once (events in batches of at most 1000)',
    );
  }
  let raw: unknown;
  try {
    raw = text === '' ? {} : JSON.parse(text);
  } catch {
    throw new ApiError(
      400,
      'INVALID_JSON',
      'the request body is not JSON',
      'send a JSON object with content-type application/json',
    );
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw invalidRequest(parsed.error, 'body');
  return parsed.data;
}

function queryOf<T>(ctx: RouteContext, schema: z.ZodType<T>): T {
  const parsed = schema.safeParse(Object.fromEntries(ctx.url.searchParams));
  if (!parsed.success) throw invalidRequest(parsed.error, 'query');
  return parsed.data;
}

/** The request `invoke` takes, for one task of an invocation body the door admitted. */
export function invokeRequestOf(
  body: Omit<InvocationBody, 'tasks' | 'concurrency' | 'task' | 'servers'> & { servers?: unknown },
  task: string,
) {
  const { ...fields } = body as Record<string, unknown>;
  delete fields.tasks;
  delete fields.concurrency;
  return { ...fields, task } as Submission;
}

/** An invocation's end as the door answers it: 200 with the result, 422 refused, or the error it threw. */
function answerOf(result: unknown): { status: number; body: unknown } {
  const r = result as (InvokeResult & { error?: undefined }) | { error: unknown; status: number };
  if ('error' in r && r.error !== undefined) {
    const { status, ...body } = r as { error: unknown; status: number };
    return { status, body };
  }
  const invoked = r as InvokeResult;
  if (invoked.status === 'refused') {
    const e = refusalError(invoked);
    return { status: 422, body: { error: { code: e.code, message: e.message, fix: e.fix }, ...e.extra } };
  }
  return { status: 200, body: invoked };
}

export const ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/v1/health',
    operationId: 'health',
    summary: "The service's version, ledger, and load",
    tags: ['service'],
    responses: { '200': 'ok' },
    async handle({ res, deps }) {
      sendJson(res, 200, {
        ok: true,
        version: packageVersion(),
        ledger: deps.runtime.ledger.location,
        invocations: deps.invocations.load,
        subscriptions: { open: deps.subscriptions.openCount },
      });
    },
  },
  {
    method: 'POST',
    path: '/v1/invocations',
    operationId: 'invoke',
    summary:
      'Run a one_shot invocation (the JSON of `invoke --json`); `tasks` fans out within the mode. Waits for the result unless the request says `Prefer: respond-async`; an `Idempotency-Key` never runs a session twice.',
    tags: ['invocations'],
    body: invocationRequest,
    responses: {
      '200': 'the InvokeResult (completed or failed); fan-out: {results, invocations}',
      '202': 'accepted (Prefer: respond-async): {id, state, links}',
      '400': 'the request does not validate, or bad usage (an unknown role, a handoff that is not an id)',
      '403':
        'the service does not take it: an override (OVERRIDE_NOT_ALLOWED), a server it does not declare (SERVER_NOT_DECLARED) or a command line (SERVER_COMMAND_NOT_ALLOWED, SUBSTRATE_NOT_ALLOWED)',
      '404': 'no such persona',
      '422': 'refused: the refusal reason as error.code, the result beside; or a profile that does not load',
    },
    async handle(ctx) {
      const body = await admit(await bodyOf(ctx, invocationRequest), { ...ctx.deps, door: 'http' });
      const key = header(ctx.req, 'idempotency-key');
      const async = /respond-async/i.test(header(ctx.req, 'prefer') ?? '');
      const { invocations } = ctx.deps;
      if (body.tasks) {
        // At most `concurrency` of this request's sessions at once, within the service's own limit.
        const { records, done } = await invocations.submitMany(
          body.tasks.map((task) => invokeRequestOf(body, task)),
          { concurrency: body.concurrency ?? 4, ...(key ? { idempotencyKey: key } : {}) },
        );
        const ids = records.map((record) => record.id);
        if (async) return sendJson(ctx.res, 202, { invocations: ids, state: 'queued' });
        const results = (await done).map((record) => record.result);
        return sendJson(ctx.res, 200, { invocations: ids, results });
      }
      const { record, done } = await invocations.submit(
        invokeRequestOf(body, body.task!),
        key ? { idempotencyKey: key } : {},
      );
      const links = { self: `/v1/invocations/${record.id}`, events: `/v1/invocations/${record.id}/events` };
      const headers = { location: links.self, 'firstlight-invocation': record.id };
      if (async) return sendJson(ctx.res, 202, { id: record.id, state: record.state, links }, headers);
      const final = await done;
      const { status, body: answer } = answerOf(final.result);
      sendJson(ctx.res, status, answer, headers);
    },
  },
  {
    method: 'GET',
    path: '/v1/invocations/{id}',
    operationId: 'getInvocation',
    summary: 'An invocation: its state, attempt, sessions and (once ended) its result',
    tags: ['invocations'],
    responses: { '200': 'the invocation record', '404': 'no such invocation' },
    async handle({ res, params, deps }) {
      const record = await deps.invocations.get(params.id!);
      if (!record)
        throw new ApiError(
          404,
          'NOT_FOUND',
          `no invocation ${params.id}`,
          'use the id POST /v1/invocations returned',
        );
      sendJson(res, 200, record);
    },
  },
  {
    method: 'GET',
    path: '/v1/invocations/{id}/events',
    operationId: 'invocationEvents',
    summary:
      "An invocation's events as server-sent events (state, text, tool_call, tool_result, denial, usage, substrate_error, result), resumable with Last-Event-ID",
    tags: ['invocations'],
    sse: true,
    responses: { '200': 'text/event-stream', '404': 'no such invocation' },
    async handle(ctx) {
      const stream = await ctx.deps.invocations.events(ctx.params.id!);
      if (!stream)
        throw new ApiError(
          404,
          'NOT_FOUND',
          `no invocation ${ctx.params.id}`,
          'use the id POST /v1/invocations returned',
        );
      await serveSse(ctx.req, ctx.res, stream, resumeCursor(ctx.req, ctx.url));
    },
  },
  {
    method: 'POST',
    path: '/v1/subscriptions',
    operationId: 'subscribe',
    summary: 'Open a subscribed session (an observer by default): events in, emissions out on its channels',
    tags: ['subscriptions'],
    body: subscriptionRequest,
    responses: {
      '201': 'the subscription',
      '400': 'does not validate',
      '403': 'a server the service does not declare, or a command line',
      '422': 'refused (the reason as error.code)',
    },
    async handle(ctx) {
      const body = await admit(await bodyOf(ctx, subscriptionRequest), { ...ctx.deps, door: 'http' });
      const opened = await ctx.deps.subscriptions.open(body as SubscribeRequest);
      if ('status' in opened) throw refusalError(opened);
      const summary = await ctx.deps.subscriptions.get(opened.id);
      sendJson(ctx.res, 201, summary, { location: summary.links.self });
    },
  },
  {
    method: 'GET',
    path: '/v1/subscriptions',
    operationId: 'listSubscriptions',
    summary: 'The open subscriptions with their counts (`?state=all`: closed ones too)',
    tags: ['subscriptions'],
    query: subscriptionsQuery,
    responses: { '200': '{subscriptions: [...]}', '400': 'a bad query' },
    async handle(ctx) {
      const { state } = queryOf(ctx, subscriptionsQuery);
      sendJson(ctx.res, 200, { subscriptions: await ctx.deps.subscriptions.list(state === 'all') });
    },
  },
  {
    method: 'GET',
    path: '/v1/subscriptions/{id}',
    operationId: 'getSubscription',
    summary: 'A subscription: state, policy, participants, counts, last emission',
    tags: ['subscriptions'],
    responses: { '200': 'the subscription', '404': 'no such subscription' },
    async handle({ res, params, deps }) {
      sendJson(res, 200, await deps.subscriptions.get(params.id!));
    },
  },
  {
    method: 'POST',
    path: '/v1/subscriptions/{id}/events',
    operationId: 'postEvents',
    summary: 'Send events (one, or {events: [...]} up to 1000); never waits for an interpretation',
    tags: ['subscriptions'],
    body: eventsRequest,
    responses: {
      '202': '{accepted, rejected, counts}',
      '404': 'no such subscription',
      '409': 'the subscription is closed',
      '429': 'policy queue, buffer full: the refused events are counted, send them again later',
    },
    async handle(ctx) {
      const body = await bodyOf(ctx, eventsRequest);
      const events = 'events' in body ? body.events : [body];
      sendJson(ctx.res, 202, await ctx.deps.subscriptions.post(ctx.params.id!, events));
    },
  },
  {
    method: 'GET',
    path: '/v1/subscriptions/{id}/stream',
    operationId: 'subscriptionStream',
    summary:
      "The subscription's emissions as server-sent events, one event name per channel, `end` at teardown; resumable with Last-Event-ID (none lost, none repeated)",
    tags: ['subscriptions'],
    sse: true,
    responses: { '200': 'text/event-stream', '404': 'no such subscription' },
    async handle(ctx) {
      const stream = await ctx.deps.subscriptions.stream(ctx.params.id!);
      await serveSse(ctx.req, ctx.res, stream, resumeCursor(ctx.req, ctx.url));
    },
  },
  {
    method: 'DELETE',
    path: '/v1/subscriptions/{id}',
    operationId: 'teardown',
    summary:
      'Tear the subscription down (journaled; pending events are dropped and counted; the stream ends)',
    tags: ['subscriptions'],
    responses: { '200': 'the subscription, closed', '404': 'no such subscription' },
    async handle({ res, params, deps }) {
      sendJson(res, 200, await deps.subscriptions.close(params.id!));
    },
  },
  {
    method: 'GET',
    path: '/v1/personas',
    operationId: 'listPersonas',
    summary: "The profiles in the home and the runtime's directory sources, each loaded or with its error",
    tags: ['ledger'],
    responses: { '200': '{personas: [...], sources: [...]}' },
    async handle({ res, deps }) {
      const { context } = deps.runtime;
      const sources = sourcesOf(context);
      sendJson(res, 200, {
        personas: listProfiles({ home: context.home, cwd: context.cwd, sources }),
        sources,
      });
    },
  },
  {
    method: 'GET',
    path: '/v1/journal',
    operationId: 'readJournal',
    summary: 'The DOLCHEO journal, as `firstlight journal --json` reads it',
    tags: ['ledger'],
    query: journalQuery,
    responses: { '200': '{entries: [...]}', '400': 'a bad query' },
    async handle(ctx) {
      const entries = await readJournalRows(ctx.deps.runtime, queryOf(ctx, journalQuery), 1000);
      sendJson(ctx.res, 200, { entries });
    },
  },
  {
    method: 'GET',
    path: '/v1/handoffs/{id}',
    operationId: 'readHandoff',
    summary: 'A stored handoff, its sha256, and its provenance checked against its journal row',
    tags: ['ledger'],
    responses: { '200': '{handoff, sha256, verified, provenance | problem}', '404': 'no such handoff' },
    async handle({ res, params, deps }) {
      const read = await readHandoffChecked(deps.runtime, params.id!);
      if (!read)
        throw new ApiError(
          404,
          'NOT_FOUND',
          `no handoff ${params.id}`,
          'use an id from meta.handoff_id or the journal',
        );
      sendJson(res, 200, read);
    },
  },
];
