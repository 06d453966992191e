/** `firstlight hook post-tool-use` and `post-tool-failure`, bundled on their own (scripts/bundle.mjs). */
import { type HookRunOptions, postToolUseHandler, runHookWith } from '../../host/hook/index.js';

export const run = (options: HookRunOptions) =>
  runHookWith(options, { 'post-tool-use': postToolUseHandler, 'post-tool-failure': postToolUseHandler });
