/**
 * @module host/hook — the lightweight face of the host part, for `firstlight hook EVENT`: hooks
 * run on every tool call, so this entry loads only the adapters, the handlers and the emitter
 * (the mind loads lazily, for SessionStart only). Everything else is in `./index.ts`.
 */
export { emitHookCrash, emitHookOutput } from './hook/emit.js';
export type { HookRunOptions } from './hook/run-hook.js';
export { detectHost, runHook } from './hook/run-hook.js';
export type { HookEvent, HostId } from './ids.js';
export { HOOK_EVENTS, HOST_IDS, isHookEvent, isHostId, SCOPES } from './ids.js';
