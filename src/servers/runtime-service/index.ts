/**
 * @module servers/runtime-service — the persona runtime as a service: the HTTP API (`/v1/…`,
 * its OpenAPI document generated from the schemas that validate it) and the MCP door (`/mcp`,
 * and on stdio), one-shot invocations under a concurrency limit, subscribed sessions.
 */

export type { InvocationsOptions } from './invocations.js';
export { Invocations, newInvocationId } from './invocations.js';
export { createRuntimeMcpServer, RUNTIME_INSTRUCTIONS } from './mcp.js';
export { openApiDocument } from './openapi.js';
export type { PgQueue, PgQueueOptions } from './pg-queue.js';
export type { PgRelay } from './pg-relay.js';

/** Subscriptions across replicas on a Postgres store (loads pg only here). */
export async function createPgRelay(
  ledger: import('../../runtime/index.js').PgLedger,
  url: string,
  log: import('../../core/index.js').Logger,
) {
  const { PgRelay } = await import('./pg-relay.js');
  return new PgRelay(ledger, url, log);
}

/** The queue replicas share on a Postgres store (pg-boss loads only here). */
export async function createPgQueue(options: import('./pg-queue.js').PgQueueOptions) {
  const { PgQueue } = await import('./pg-queue.js');
  return new PgQueue(options);
}
export type { Route, ServiceDeps } from './routes.js';
export { ROUTES } from './routes.js';
export type { EventsBody, InvocationBody, JournalQueryBody, SubscriptionBody } from './schemas.js';
export { eventsRequest, invocationRequest, journalQuery, subscriptionRequest } from './schemas.js';
export type { RunningRuntimeService, RuntimeServiceOptions } from './service.js';
export { startRuntimeService } from './service.js';
export type { SubscriptionSummary } from './subscriptions.js';
export { Subscriptions } from './subscriptions.js';
