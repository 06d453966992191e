import type { InvokeResult, RefusalReason } from '../../runtime/index.js';
import { ApiError } from './errors.js';

/** What a consumer does about each refusal: the `fix` of its 422. */
const FIXES: Readonly<Record<RefusalReason, string>> = {
  mutating_tools_for_role:
    "drop the tools the role's access does not admit from `tools`, or invoke a role that may hold them",
  missing_handoff: 'pass the handoff the role needs in `handoffs` (or a reversion/skip acknowledgement)',
  incomplete_handoff: "complete the handoff's minimal fields (see `message`) and pass it again",
  no_builder_handoff:
    'pass the artifact a builder session of this ledger produced, or a skip acknowledgement beside an imported one',
  validator_extra_context:
    'give a validator only the artifact, its claims and governance: drop `context` and other handoffs, and state the task without referring to an earlier conversation',
  inherited_context:
    "drop `context` (a fresh role reads its input handoff, not another session's conversation), or the handoffs of a later mode; a role of freshness light takes prior conversation",
  same_session_transition: 'start a fresh session in the other role, with the encoded handoff of this one',
  tool_set_locked: 'continue with the tools the session locked at its start, or start a fresh session',
  handoff_unverified: 'use a handoff as the runtime stored it (its sha256 must match its journal row)',
  engagement_surface:
    'use the engagement the surface takes (agent on real-time-stream, assistant on sidebar-chat)',
  invalid_override: 'declare the override with two known modes, a specific reason and an acknowledged risk',
  sandbox_unavailable:
    'install bubblewrap on the server (apt-get install bubblewrap), or run the role on another substrate',
};

/** A refused result as the 422 it is: the reason as the code, the detail as the message, and the result beside. */
export function refusalError(result: InvokeResult): ApiError {
  const reason = result.meta.refusal_reason!;
  return new ApiError(422, reason, result.meta.detail ?? reason, FIXES[reason], { result });
}
