/** `firstlight hook session-start`, bundled on its own (scripts/bundle.mjs): the packet. */
import { type HookRunOptions, runHookWith, sessionStartHandler } from '../../host/hook/index.js';

export const run = (options: HookRunOptions) =>
  runHookWith(options, { 'session-start': sessionStartHandler });
