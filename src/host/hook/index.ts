/**
 * @module host/hook — what `firstlight hook` loads on every tool call: the runner and its
 * emitter. A light face of host for the CLI's hook entry, so a hook does not load what the host
 * index also carries (the bootstrap block editor, install commands, report renderings).
 */
export { emitHookCrash, emitHookOutput } from './emit.js';
export { runHook } from './run-hook.js';
