import type { Mode } from '../policy.js';
import type { Voice } from '../surfaces.js';
import type { TaskServer } from '../types.js';

/**
 * A subscribed session (the canon's `subscribed` type): long-lived, fed events, emitting over
 * time on named channels, each with its own surface post-processing, under a backpressure
 * policy for when events come faster than they are interpreted.
 */

/**
 * What happens when events arrive faster than they are interpreted:
 * - `drop_oldest`: each interpretation reads one event; a full buffer drops its oldest;
 * - `coalesce`: each interpretation reads every event pending, as one batch; a full buffer
 *   drops its oldest;
 * - `queue`: each interpretation reads one event; a full buffer refuses new ones (HTTP 429).
 */
export const BACKPRESSURE_POLICIES = ['drop_oldest', 'coalesce', 'queue'] as const;
export type BackpressurePolicy = (typeof BACKPRESSURE_POLICIES)[number];

/** Why a subscription ended. */
export const TEARDOWN_REASONS = ['request', 'idle', 'shutdown'] as const;
export type TeardownReason = (typeof TEARDOWN_REASONS)[number];

/** Stream event names a channel may not take (the stream's own). */
export const RESERVED_EVENTS = ['end', 'error', 'message'] as const;

/** One output channel: where emissions go, post-processed for its surface and voice. */
export interface ChannelSpec {
  /** The SSE event name its emissions carry. */
  readonly name: string;
  /** A surface of the profile (its density cap, structured output); default the subscription's. */
  readonly surface?: string;
  readonly voice?: Voice;
  /**
   * What of the answer it carries: `text` (the prose, a human field), `data` (the fenced JSON,
   * a machine field), or `data.KEY` (one key of it). Default `text`.
   */
  readonly select?: string;
}

/** One event posted to a subscription. */
export interface SubscriptionEvent {
  /** Who sent it: one of the session's participants (a new name joins, journaled). */
  readonly participant?: string;
  /** What kind of event it is (free text, shown to the model). */
  readonly type?: string;
  readonly text?: string;
  readonly data?: unknown;
}

/** A participant at the start: a name, and the role it takes (must be the session's). */
export type ParticipantSpec = string | { readonly name: string; readonly role?: string };

export interface SubscribeRequest {
  readonly persona: string;
  /** Default the profile's `observer` role when it has one, else its role_default. */
  readonly role?: string;
  readonly mode?: Mode;
  /** The session's surface (the first channel's when absent). */
  readonly surface?: string;
  readonly voice?: Voice;
  /** The standing instruction each interpretation works under. */
  readonly task: string;
  /**
   * `agent`, the only engagement of a subscribed session: it emits over time and never yields
   * the turn. `assistant` is refused `engagement_surface`, as invoke refuses it on a stream.
   */
  readonly engagement?: 'agent' | 'assistant';
  readonly channels?: readonly ChannelSpec[];
  readonly policy?: BackpressurePolicy;
  /** The buffer's size: events waiting for an interpretation (default 100). */
  readonly max_pending?: number;
  /** Tear down after this long without an event (default: the service's, 600 s). */
  readonly idle_timeout_s?: number;
  readonly participants?: readonly ParticipantSpec[];
  readonly tools?: readonly string[];
  readonly servers?: Readonly<Record<string, TaskServer>>;
  readonly governance?: readonly string[];
  readonly substrate?: string;
}
