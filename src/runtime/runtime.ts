import { join } from 'node:path';
import { createLogger, type Logger } from '../core/index.js';
import type { HandoffRecord } from './handoffs.js';
import { getHandoff, invoke, ledgerDir, type RuntimeContext } from './invoke.js';
import { type JournalEntry, type JournalQuery, readJournal } from './journal.js';
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
  /** The journal, as `firstlight journal` reads it. */
  journal(query?: JournalQuery): JournalEntry[];
  handoff(id: string): HandoffRecord | undefined;
  /** Where the journal, handoffs and sessions live. */
  readonly ledger: string;
}

/** Builds a runtime. Nothing is started until a request comes. */
export function createRuntime(options: RuntimeOptions): Runtime {
  const context: RuntimeContext = {
    home: options.home,
    ...(options.project ? { project: options.project } : {}),
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? process.env,
    ...(options.substrate ? { substrate: options.substrate } : {}),
    log: options.log ?? createLogger('runtime'),
  };
  const ledger = ledgerDir(context);
  return {
    ledger,
    invoke: (request) => invoke(context, request),
    async invokeMany(requests, { concurrency = 4 } = {}) {
      const limit = Math.max(1, Math.floor(concurrency));
      const results: InvokeResult[] = new Array(requests.length);
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < requests.length; i = next++)
          results[i] = await invoke(context, requests[i]!);
      };
      await Promise.all(Array.from({ length: Math.min(limit, requests.length) }, worker));
      return results;
    },
    journal: (query) => readJournal(join(ledger, 'journal'), query),
    handoff: (id) => getHandoff(context, id),
  };
}
