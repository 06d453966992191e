import type { HandoffRecord } from '../handoffs.js';
import { composeSystemPrompt, composeTaskMessage, promptBody } from '../prompt.js';
import type { SubstrateMessage } from '../substrates/types.js';
import type { Admission } from './check-policy.js';
import type { Invocation } from './invocation.js';

/**
 * Stage 6, compose the prompt: the profile's body, then mode, surface and engagement
 * scaffolding and the deliverable's shape (brand discipline and governance by pointer); and
 * the first message (the task, the handoffs, the governance pointers; or a continued session's
 * conversation and the caller's answer).
 */

export interface Composed {
  readonly systemPrompt: string;
  readonly messages: SubstrateMessage[];
}

export async function composePrompt(
  inv: Invocation,
  admission: Admission,
  handoffs: readonly HandoffRecord[],
): Promise<Composed> {
  const { context, request, profile } = inv;
  const body = await promptBody(profile, context.home);
  const systemPrompt = composeSystemPrompt({
    profile,
    body,
    role: inv.role,
    mode: inv.mode,
    surface: inv.surface,
    surfaceProfile: inv.surfaceProfile,
    engagement: request.engagement,
    ...(admission.override ? { collapsed: admission.override.modes_collapsed } : {}),
  });
  const messages: SubstrateMessage[] = admission.prior
    ? [...admission.prior.messages, { role: 'user', content: request.task }]
    : [
        ...(request.context ?? []),
        { role: 'user', content: composeTaskMessage(request.task, handoffs, request.governance ?? []) },
      ];
  return { systemPrompt, messages };
}
