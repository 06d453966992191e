/**
 * `runHook`: the pipeline for any event, each handler loaded on first use (in-process callers
 * and tests). Kept apart from run-hook.ts so the per-event bundles, which pass their one handler
 * to runHookWith, never see the others.
 */
import type { HookOutput } from '../types.js';
import { type EventHandlers, type HookRunOptions, runHookWith } from './run-hook.js';

/** Every event's handler, each loaded on first use (in-process callers and tests). */
const LAZY_HANDLERS: Required<EventHandlers> = {
  'pre-tool-use': async (...args) => (await import('./handlers.js')).preToolUseHandler(...args),
  'post-tool-use': async (...args) => (await import('./handlers.js')).postToolUseHandler(...args),
  'post-tool-failure': async (...args) => (await import('./handlers.js')).postToolUseHandler(...args),
  'session-start': async (...args) => (await import('./handlers.js')).sessionStartHandler(...args),
  stop: async (...args) => (await import('./handlers.js')).stopHandler(...args),
  'pre-compact': async (...args) => (await import('./handlers.js')).preCompactHandler(...args),
};

/** The hook pipeline for any event, loading each handler on demand. */
export function runHook(options: HookRunOptions): Promise<HookOutput> {
  return runHookWith(options, LAZY_HANDLERS);
}
