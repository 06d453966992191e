/**
 * `firstlight hook stop` and `pre-compact`, bundled on their own (scripts/bundle.mjs): the
 * resumption capture. An unknown event comes here too, and is refused by the pipeline.
 */
import { type HookRunOptions, preCompactHandler, runHookWith, stopHandler } from '../../host/hook/index.js';

export const run = (options: HookRunOptions) =>
  runHookWith(options, { stop: stopHandler, 'pre-compact': preCompactHandler });
