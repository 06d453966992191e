/**
 * @module ui — `firstlight ui`: a local web page to see the mind and the runtime. Wake-up (the
 * packet as each host receives it), Memory (recall, filters, edit, forget, restore, history),
 * Observations (events, prediction errors plotted, cautions, surprises), Sessions, Runtime (the
 * journal as stories, handoff graphs, live subscriptions of a runtime service) and Hosts
 * (doctor with fixes). Server-rendered HTML with a small script from the package; views update
 * over server-sent events when their files change. The same bind, token, Host and Origin rules
 * as the HTTP servers, and no write without a same-origin request carrying the page's token.
 */
import type { Logger } from '../core/index.js';
import { createUiContext } from './context.js';
import { LiveChanges } from './live.js';
import { type RunningUi, startUiServer } from './server.js';
import { watchTargets } from './watch-targets.js';

export type { ViewId } from './layout.js';
export { VIEW_IDS, VIEWS } from './layout.js';
export type { RunningUi } from './server.js';

export interface UiOptions {
  home: string;
  /** The project whose packet, taskspace and host installs are shown. */
  project: string;
  /** The runtime ledger (`<project>/.firstlight`, or the home without a project). */
  ledger: string;
  host: string;
  port: number;
  token: string | undefined;
  allowedHosts?: readonly string[];
  /** A runtime service's URL (`firstlight runtime serve`) for live subscriptions. */
  runtimeUrl?: string | undefined;
  /** The runtime service's token, when it has one (sent as a bearer token). */
  runtimeToken?: string | undefined;
  /** How often the service is asked while a Runtime page is open (default a second). */
  runtimePollMs?: number;
  log: Logger;
  version: string;
  env: NodeJS.ProcessEnv;
  userHome: string;
  clock?: () => Date;
}

/** Starts the page's server; `close()` stops it, its watchers, and saves the recall index. */
export async function serveUi(options: UiOptions): Promise<RunningUi> {
  const { context, close: closeContext } = createUiContext({
    home: options.home,
    project: options.project,
    ledger: options.ledger,
    runtimeUrl: options.runtimeUrl,
    runtimeToken: options.runtimeToken,
    log: options.log,
    version: options.version,
    env: options.env,
    userHome: options.userHome,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const live = new LiveChanges(watchTargets(context), { log: options.log });
  let running: RunningUi;
  try {
    running = await startUiServer({
      host: options.host,
      port: options.port,
      token: options.token,
      allowedHosts: options.allowedHosts ?? [],
      context,
      live,
      ...(options.runtimePollMs ? { runtimePollMs: options.runtimePollMs } : {}),
      log: options.log,
    });
  } catch (error) {
    live.close();
    closeContext();
    throw error;
  }
  // Ready before the URL is handed out: the packet's first load and the recall index (built
  // from the files when no process saved one yet: seconds at 10,000 memories) are paid here, not
  // by the first page. Listening already, so a port in use fails at once.
  await context.mind.warm();
  try {
    context.recall().stats();
  } catch (error) {
    options.log.debug(`ui: recall warm-up failed (the first search will retry): ${(error as Error).message}`);
  }
  return {
    ...running,
    close: async () => {
      await running.close();
      live.close();
      await context.mind.settle();
      closeContext();
    },
  };
}
