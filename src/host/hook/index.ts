/**
 * @module host/hook — what `firstlight hook` loads on every tool call: the pipeline, one handler
 * per event, and the emitter. A light face of host for the CLI's hook entry, so a hook does not
 * load what the host index also carries (the bootstrap block editor, install commands, report
 * renderings); each of the hook's per-event bundles imports one handler from here. `runHook`
 * (every event, each handler loaded on demand) is on the host index: a dynamic import of the
 * handlers here would make the bundler split them out of every event's bundle.
 */

export type { HookOutput } from '../types.js';
export { emitHookCrash, emitHookOutput } from './emit.js';
export {
  postToolUseHandler,
  preCompactHandler,
  preToolUseHandler,
  sessionStartHandler,
  stopHandler,
} from './handlers.js';
export type { EventHandler, EventHandlers, HookRunOptions } from './run-hook.js';
export { runHookWith } from './run-hook.js';
