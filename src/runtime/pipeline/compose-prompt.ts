import { UserError } from '../../core/index.js';
import type { HandoffRecord } from '../handoffs.js';
import { composeSystemPrompt, composeTaskMessage, promptBody } from '../prompt.js';
import { resolveSubstrate } from '../substrates/index.js';
import type { Substrate, SubstrateMessage } from '../substrates/types.js';
import type { Admission } from './check-policy.js';
import { type Invocation, settingsOf } from './invocation.js';

/**
 * Stage 5, compose the prompt: the profile's body, then mode, surface and engagement
 * scaffolding and the deliverable's shape (brand discipline and governance by pointer); the
 * first message (the task, the handoffs, the governance pointers; or a continued session's
 * conversation and the caller's answer); and the substrate that will run it.
 */

export interface Composed {
  readonly systemPrompt: string;
  readonly messages: SubstrateMessage[];
  readonly substrate: Substrate;
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
  // The invocation's substrate, else the runtime's, the profile's, the settings' default.
  const settings =
    request.substrate === undefined && context.substrate === undefined && !profile.substrate
      ? settingsOf(context.home)
      : undefined;
  const spec = request.substrate ?? context.substrate ?? profile.substrate ?? settings?.substrates.default;
  if (!spec) {
    throw new UserError('no substrate to run the session on', {
      code: 'SUBSTRATE_MISSING',
      hint: 'pass --substrate scripted:FILE or a substrate kind',
    });
  }
  const substrate =
    typeof spec === 'string'
      ? await resolveSubstrate(spec, {
          cwd: context.cwd,
          env: context.env,
          settings: settings ?? settingsOf(context.home),
        })
      : spec;
  const messages: SubstrateMessage[] = admission.prior
    ? [...admission.prior.messages, { role: 'user', content: request.task }]
    : [
        ...(request.context ?? []),
        { role: 'user', content: composeTaskMessage(request.task, handoffs, request.governance ?? []) },
      ];
  return { systemPrompt, messages, substrate };
}
