/**
 * @module runtime/subscriptions — subscribed sessions: events in, emissions out on channels with
 * their own post-processing, a backpressure policy, bounded memory, teardown journaled; and the
 * cursor-read stream log the service's streams share.
 */

export type { Batch, BufferedEvent } from './buffer.js';
export { EventBuffer } from './buffer.js';
export type { Answer, ChannelOutput, ResolvedChannel } from './channels.js';
export { channelOutput, selectFor } from './channels.js';
export type { OpenOptions } from './open.js';
export { DEFAULT_MAX_PENDING, MAX_PENDING_LIMIT, newSubscriptionId, openSubscription } from './open.js';
export type { StreamLogOptions } from './stream-log.js';
export { StreamLog } from './stream-log.js';
export { Subscription } from './subscription.js';
export type {
  BackpressurePolicy,
  ChannelSpec,
  ParticipantSpec,
  SubscribeRequest,
  SubscriptionEvent,
  TeardownReason,
} from './types.js';
export { BACKPRESSURE_POLICIES, RESERVED_EVENTS, TEARDOWN_REASONS } from './types.js';
