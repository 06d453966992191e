import { join } from 'node:path';
import type { Logger } from '../core/index.js';
import { createMind, type Mind, openRecallIndex, type RecallIndex } from '../mind/index.js';

/** What the views read from: one home, one project, the runtime's ledger, and this process's mind. */
export interface UiContext {
  home: string;
  /** The project the Wake-up packet, the Hosts view and the taskspace are about. */
  project: string;
  /** Where the runtime keeps its journal and handoffs (`<project>/.firstlight`, or the home). */
  ledger: string;
  /** One mind for the process (its memory store watched), shared by every request. */
  mind: Mind;
  /** The recall index over the mind's memory, opened on first use and saved on close. */
  recall(): RecallIndex;
  /** A runtime service (`firstlight runtime serve`) to ask for live subscriptions, when configured. */
  runtimeUrl: string | undefined;
  /** Sent to the runtime service as a bearer token when set. */
  runtimeToken: string | undefined;
  clock: () => Date;
  log: Logger;
  version: string;
  /** The environment doctor reads (hosts' config locations) and probes with. */
  env: NodeJS.ProcessEnv;
  userHome: string;
}

export interface UiContextOptions {
  home: string;
  project: string;
  ledger: string;
  runtimeUrl?: string | undefined;
  runtimeToken?: string | undefined;
  clock?: () => Date;
  log: Logger;
  version: string;
  env: NodeJS.ProcessEnv;
  userHome: string;
}

/** Builds the context and a `close` that saves the recall index and stops the memory watcher. */
export function createUiContext(options: UiContextOptions): { context: UiContext; close: () => void } {
  const clock = options.clock ?? (() => new Date());
  const mind = createMind({
    home: options.home,
    projectDir: options.project,
    log: options.log,
    clock,
    watchMemory: true,
  });
  let index: RecallIndex | undefined;
  const context: UiContext = {
    home: options.home,
    project: options.project,
    ledger: options.ledger,
    mind,
    recall: () => {
      index ??= openRecallIndex(mind);
      return index;
    },
    runtimeUrl: options.runtimeUrl,
    runtimeToken: options.runtimeToken,
    clock,
    log: options.log,
    version: options.version,
    env: options.env,
    userHome: options.userHome,
  };
  return {
    context,
    close: () => {
      index?.close();
      mind.close();
    },
  };
}

/** The runtime ledger's journal and handoff folders. */
export function ledgerPaths(context: UiContext): { journal: string; handoffs: string; sessions: string } {
  return {
    journal: join(context.ledger, 'journal'),
    handoffs: join(context.ledger, 'handoffs'),
    sessions: join(context.ledger, 'sessions'),
  };
}
