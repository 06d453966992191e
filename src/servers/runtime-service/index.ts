/**
 * @module servers/runtime-service — the persona runtime as a service: the HTTP API (`/v1/…`,
 * its OpenAPI document generated from the schemas that validate it) and the MCP door (`/mcp`,
 * and on stdio), one-shot invocations under a concurrency limit, subscribed sessions.
 */

export type { Door, DoorPolicy } from './door-policy.js';
export { doorPolicyOf } from './door-policy.js';
export type { InvocationsOptions } from './invocations.js';
export { Invocations, newInvocationId } from './invocations.js';
export { createRuntimeMcpServer, RUNTIME_INSTRUCTIONS } from './mcp.js';
export { openApiDocument } from './openapi.js';
export type { PgQueue, PgQueueOptions } from './pg-queue.js';
export type { PgRelay } from './pg-relay.js';

/**
 * What replicas on one Postgres share (pg and pg-boss load only here): the invocation queue and
 * the subscription relay, over one LISTEN connection.
 */
export async function createPgShared(options: Omit<import('./pg-queue.js').PgQueueOptions, 'notices'>) {
  const [{ PgNotices }, { PgQueue }, { PgRelay }] = await Promise.all([
    import('./pg-notices.js'),
    import('./pg-queue.js'),
    import('./pg-relay.js'),
  ]);
  const notices = new PgNotices(options.url);
  return {
    queue: new PgQueue({ ...options, notices }),
    relay: new PgRelay(options.ledger, notices, options.log),
  };
}
export type { Route, ServiceDeps } from './routes.js';
export { ROUTES } from './routes.js';
export type { EventsBody, InvocationBody, JournalQueryBody, SubscriptionBody } from './schemas.js';
export { eventsRequest, invocationRequest, journalQuery, subscriptionRequest } from './schemas.js';
export type { RunningRuntimeService, RuntimeServiceOptions } from './service.js';
export { startRuntimeService } from './service.js';
export type { SubscriptionSummary } from './subscriptions.js';
export { Subscriptions } from './subscriptions.js';
