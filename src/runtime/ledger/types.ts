import type { HandoffRecord, StoredHandoff } from '../handoffs.js';
import type { JournalEntry, JournalQuery, JournalWrite } from '../journal.js';
import type { SessionState } from '../sessions.js';

/**
 * The ledger: everything the runtime keeps between requests — the DOLCHEO journal, handoffs
 * with their sha256, the state of sessions that yielded the turn, invocations (with their
 * attempts, idempotency keys and event streams) and subscriptions (with their emissions). One
 * interface, every method async and free of any assumption that the store is a local file: the
 * embedded default keeps files under `<project>/.firstlight/` (file-ledger.ts, the only code that
 * touches them), and a shared store (a database several replicas use) implements the same.
 */

/** The row that stored a handoff, as the ledger found it by the reference the handoff names. */
export interface HandoffRow {
  readonly kind: 'transition' | 'import';
  readonly fields: Readonly<Record<string, string>>;
}

/** Why a handoff's row could not be read: its reference is unknown to this ledger, or gone. */
export type HandoffRowMissing = 'no_such_journal' | 'no_such_row';

/**
 * One event of a stream a consumer reads (an invocation's events, a subscription's emissions),
 * numbered from 1 in the order written: the number is the stream's cursor (SSE `id`,
 * `Last-Event-ID`), so a reader that reconnects resumes after the last one it saw.
 */
export interface StreamRecord {
  readonly seq: number;
  /** The event name (SSE `event`): `text`, `tool_call`, `result`; a subscription's channel name. */
  readonly event: string;
  readonly data: unknown;
  readonly at: string;
}

/** Where an invocation stands. `queued` until a worker takes it; one record per invocation. */
export type InvocationState = 'queued' | 'running' | 'completed' | 'refused' | 'failed';

/** One invocation accepted by the service: its request, its attempts and its result. */
export interface InvocationRecord {
  readonly id: string;
  readonly state: InvocationState;
  /** 1 for the first run; a store that takes over a lost run counts on (`reason` says why). */
  readonly attempt: number;
  readonly reason?: string;
  /** The request as accepted (JSON), without what cannot travel (callbacks). */
  readonly request: Readonly<Record<string, unknown>>;
  readonly idempotency_key?: string;
  /** The sessions its attempts ran as. */
  readonly sessions: readonly string[];
  readonly created: string;
  readonly updated: string;
  /** The InvokeResult, once it ended. */
  readonly result?: unknown;
}

/** A subscribed session's lifecycle. */
export type SubscriptionState = 'open' | 'closed';

/** What a subscription's backpressure policy did to the events it was sent. */
export interface SubscriptionCounts {
  /** Events accepted (posted and not refused). */
  received: number;
  /** Interpretations run (each covers one event, or a batch under `coalesce`). */
  interpreted: number;
  /** Events dropped unread: pushed out of a full buffer, or pending at teardown. */
  dropped: number;
  /** Events folded into another event's interpretation (`coalesce`). */
  coalesced: number;
  /** Events refused with 429 because the queue was full (`queue`): never accepted. */
  rejected: number;
  /** Events waiting for an interpretation now. */
  queued: number;
  /** Emissions written to the stream (one per channel per interpretation). */
  emitted: number;
}

/** One subscribed session as the ledger keeps it (its live buffer is the server's, not here). */
export interface SubscriptionRecord {
  readonly id: string;
  /** The session the subscription runs as (its journal rows carry it). */
  readonly session: string;
  readonly state: SubscriptionState;
  readonly persona: string;
  readonly persona_version?: number | string;
  readonly role: string;
  readonly policy: string;
  /** The request it was opened with (JSON). */
  readonly request: Readonly<Record<string, unknown>>;
  readonly participants: readonly string[];
  readonly counts: SubscriptionCounts;
  /** The last emission's number (the stream's cursor end). */
  readonly last_seq: number;
  readonly created: string;
  readonly updated: string;
  /** Why it ended: `request`, `idle`, `shutdown`, or a failure. */
  readonly teardown?: string;
}

export interface Ledger {
  /** Where it lives, for messages and `GET /v1/health`: a directory, a database without its password. */
  readonly location: string;

  /** Appends journal rows (in order) written at `at`; concurrent writers never interleave a row. */
  appendJournal(entries: readonly JournalWrite[], at?: Date): Promise<void>;
  /**
   * The reference a handoff stores to name the row that records it: rows of `session` written
   * at `at`. Opaque to everything but the ledger that made it.
   */
  journalRef(session: string, at: Date): string;
  readJournal(query?: JournalQuery): Promise<JournalEntry[]>;
  /** The `transition` or `import` row of `ref` that stores handoff `id`. */
  handoffRow(ref: string, id: string): Promise<HandoffRow | HandoffRowMissing>;
  /** A session's `session_start` row (for sessions that keep no state). */
  sessionStart(session: string): Promise<JournalEntry | undefined>;

  /** Stores a new handoff and returns the sha256 its journal row must hold. Never overwrites. */
  putHandoff(record: HandoffRecord): Promise<{ readonly sha256: string; readonly location: string }>;
  /** A stored handoff with the sha256 of its bytes as stored now, or undefined. */
  getHandoff(id: string): Promise<StoredHandoff | undefined>;

  getSession(id: string): Promise<SessionState | undefined>;
  putSession(state: SessionState): Promise<void>;

  /**
   * Records a new invocation. With `idempotency_key` set and a record already holding that key,
   * nothing is written and that record comes back (`created: false`): a client's retry never
   * runs a session twice.
   */
  createInvocation(
    record: InvocationRecord,
  ): Promise<{ readonly record: InvocationRecord; readonly created: boolean }>;
  updateInvocation(record: InvocationRecord): Promise<void>;
  getInvocation(id: string): Promise<InvocationRecord | undefined>;
  appendInvocationEvents(id: string, events: readonly StreamRecord[]): Promise<void>;
  /** Events numbered after `after`, at most `limit`, in order. */
  readInvocationEvents(id: string, after: number, limit: number): Promise<StreamRecord[]>;

  putSubscription(record: SubscriptionRecord): Promise<void>;
  getSubscription(id: string): Promise<SubscriptionRecord | undefined>;
  listSubscriptions(filter?: { readonly state?: SubscriptionState }): Promise<SubscriptionRecord[]>;
  appendEmissions(id: string, emissions: readonly StreamRecord[]): Promise<void>;
  /** Emissions numbered after `after`, at most `limit`, in order. */
  readEmissions(id: string, after: number, limit: number): Promise<StreamRecord[]>;
}
