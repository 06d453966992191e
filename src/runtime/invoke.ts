import type { Hub } from '../hub/index.js';
import { checkPolicy } from './pipeline/check-policy.js';
import { composePrompt } from './pipeline/compose-prompt.js';
import { finish } from './pipeline/finish.js';
import type { RuntimeContext } from './pipeline/invocation.js';
import { journalStart } from './pipeline/journal-start.js';
import { lockTools } from './pipeline/lock-tools.js';
import { resolveProfile } from './pipeline/resolve-profile.js';
import { resolveSessionSubstrate } from './pipeline/resolve-substrate.js';
import { runSession } from './pipeline/run-session.js';
import type { Profile, ProfileRole } from './profile.js';
import type { InvokeRequest, InvokeResult } from './types.js';

export { ledgerDir, ledgerRoot, newSessionId, type RuntimeContext } from './pipeline/invocation.js';

/**
 * Runs one invocation through the pipeline's stages, in the order docs/runtime.md lists them.
 * Bad usage throws a UserError; refusals return (journaled, nothing run); a session that ran
 * returns completed or failed.
 */
export async function invoke(context: RuntimeContext, request: InvokeRequest): Promise<InvokeResult> {
  const inv = resolveProfile(context, request);
  const admission = await checkPolicy(inv);
  if ('status' in admission) return admission;
  const resolved = await resolveSessionSubstrate(inv, admission);
  if ('status' in resolved) return resolved;
  let hub: Hub | undefined;
  try {
    const tools = await lockTools(inv, admission, (started) => {
      hub = started;
    });
    if ('status' in tools) return tools;
    const handoffs = await journalStart(inv, admission, tools, resolved.sandbox);
    const composed = await composePrompt(inv, admission, handoffs);
    const run = await runSession(inv, admission, tools, resolved, composed);
    return await finish(inv, admission, handoffs, resolved, composed, run);
  } finally {
    if (hub) await hub.closeAll();
  }
}

export type { Profile, ProfileRole };
