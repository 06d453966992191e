import { createLogger, type Logger } from '../core/index.js';
import type { HandoffRecord } from './handoffs.js';
import { invoke, ledgerDir, ledgerRoot, type RuntimeContext } from './invoke.js';
import type { JournalEntry, JournalQuery } from './journal.js';
import { createFileLedger, type Ledger } from './ledger/index.js';
import type { ProfileSource } from './sources.js';
import { openSubscription, type SubscribeRequest, type Subscription } from './subscriptions/index.js';
import type { Substrate } from './substrates/types.js';
import type { InvokeRequest, InvokeResult } from './types.js';

export interface RuntimeOptions {
  /** The firstlight home (profiles in `<home>/personas/`; the ledger when there is no project). */
  readonly home: string;
  /** The project root: journal, handoffs and sessions go to `<project>/.firstlight/`. */
  readonly project?: string;
  /** Where relative paths (handoff files, scripts) resolve; default the process's. */
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** The default substrate, or its spec; a request may name its own. */
  readonly substrate?: Substrate | string;
  /** Where profiles and their documents resolve; default `runtime.sources` in the home's firstlight.yaml. */
  readonly sources?: readonly ProfileSource[];
  /** The ledger; default the embedded one, files under `<project>/.firstlight/` (the home without a project). */
  readonly ledger?: Ledger;
  readonly log?: Logger;
}

export interface Runtime {
  /** Runs one session: `completed`, `refused` (never touched a substrate) or `failed`. */
  invoke(request: InvokeRequest): Promise<InvokeResult>;
  /**
   * Within-mode fan-out: runs the requests with at most `concurrency` at once; results in
   * request order. Fan-in (one handoff from N outputs) is the caller's.
   */
  invokeMany(requests: readonly InvokeRequest[], options?: { concurrency?: number }): Promise<InvokeResult[]>;
  /**
   * Opens a subscribed session (events in, emissions out on its channels), or returns the
   * refusal (journaled). `idleMs`: tear down after this long without an event (default 10 minutes).
   */
  subscribe(request: SubscribeRequest, options?: { idleMs?: number }): Promise<Subscription | InvokeResult>;
  /** The journal, as `firstlight journal` reads it. */
  journal(query?: JournalQuery): Promise<JournalEntry[]>;
  /** A stored handoff, unverified (for inspection and fan-in; a session's input is verified). */
  handoff(id: string): Promise<HandoffRecord | undefined>;
  /** Where journal, handoffs, sessions, invocations and subscriptions are kept. */
  readonly ledger: Ledger;
  /** What every invocation of this runtime shares (the service runs subscriptions on it). */
  readonly context: RuntimeContext;
}

/** Builds a runtime. Nothing is started until a request comes. */
export function createRuntime(options: RuntimeOptions): Runtime {
  const where = { home: options.home, ...(options.project ? { project: options.project } : {}) };
  const ledger = options.ledger ?? createFileLedger({ dir: ledgerDir(where), root: ledgerRoot(where) });
  const context: RuntimeContext = {
    ...where,
    ledger,
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? process.env,
    ...(options.substrate ? { substrate: options.substrate } : {}),
    ...(options.sources ? { sources: options.sources } : {}),
    log: options.log ?? createLogger('runtime'),
  };
  return {
    ledger,
    context,
    invoke: (request) => invoke(context, request),
    invokeMany: (requests, { concurrency = 4 } = {}) =>
      mapLimited(requests, concurrency, (request) => invoke(context, request)),
    subscribe: (request, { idleMs = 600_000 } = {}) => openSubscription(context, request, { idleMs }),
    journal: (query) => ledger.readJournal(query),
    handoff: async (id) => (await ledger.getHandoff(id))?.record,
  };
}

/** Runs `fn` over `items` with at most `limit` at once; results in item order. */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const width = Math.max(1, Math.floor(limit));
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await fn(items[i]!, i);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}
