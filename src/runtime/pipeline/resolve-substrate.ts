import { join } from 'node:path';
import { UserError } from '../../core/index.js';
import { REAL_SUBSTRATE_KINDS } from '../substrates/create.js';
import {
  bundledSessions,
  resolveSubstrate,
  type SessionSandbox,
  sessionSandbox,
} from '../substrates/index.js';
import type { Substrate } from '../substrates/types.js';
import type { InvokeResult } from '../types.js';
import type { Admission } from './check-policy.js';
import { type Invocation, refuse, settingsOf } from './invocation.js';

/**
 * Stage 3, resolve the substrate: the invocation's, else the runtime's, the profile's, the
 * settings' default; and, for a session that may not write on a substrate that runs tools in
 * its own process (an agent CLI), its OS sandbox — refused `sandbox_unavailable` where that
 * cannot start, before any server is started.
 */

export interface ResolvedSubstrate {
  readonly substrate: Substrate;
  readonly sandbox: SessionSandbox;
}

export async function resolveSessionSubstrate(
  inv: Invocation,
  admission: Admission,
): Promise<ResolvedSubstrate | InvokeResult> {
  const { context, request, profile } = inv;
  const settings =
    request.substrate === undefined && context.substrate === undefined && !profile.substrate
      ? settingsOf(context.home)
      : undefined;
  const spec = request.substrate ?? context.substrate ?? profile.substrate ?? settings?.substrates.default;
  if (!spec) {
    throw new UserError('no substrate to run the session on', {
      code: 'SUBSTRATE_MISSING',
      // The kinds named, so the fix is one a newcomer can type (issue 38).
      hint: `give a substrate (the request's substrate, or substrates.default in firstlight.yaml): a kind, ${REAL_SUBSTRATE_KINDS.join(' | ')}; or scripted:FILE, or scripted:NAME of a bundled session (${bundledSessions().join(', ') || 'none installed'})`,
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
  const sandbox = sessionSandbox(substrate, {
    mayWrite: admission.access === 'mutating',
    config: profile.sandbox,
    projectDir: context.project ?? context.cwd,
    scratchDir: join(inv.dataDir, 'scratch', admission.prior?.id ?? inv.meta.session_id),
  });
  if (sandbox.request) {
    const why = await substrate.sandbox!.unavailable();
    if (why) return refuse(inv, 'sandbox_unavailable', why);
  }
  return { substrate, sandbox };
}
