/** `firstlight hook pre-tool-use`, bundled on its own (scripts/bundle.mjs): the gate and the cautions. */
import { type HookRunOptions, preToolUseHandler, runHookWith } from '../../host/hook/index.js';

export const run = (options: HookRunOptions) => runHookWith(options, { 'pre-tool-use': preToolUseHandler });
