import type { Acknowledgement, HandoffRecord } from './handoffs.js';
import { article, MODES, type Mode, PRODUCER_MODE, type RefusalReason } from './policy.js';
import type { ProfileRole } from './profile.js';

/**
 * Fresh context, per role (`Freshness` in policy.ts): what a session may be given beyond its
 * own input handoffs. Pure; `checkPolicy` refuses with what this returns, journaled.
 */

export interface FreshnessInput {
  readonly role: ProfileRole;
  readonly mode: Mode | null;
  readonly task: string;
  readonly handoffs: readonly HandoffRecord[];
  /** Messages of prior conversation the request carries in. */
  readonly contextMessages: number;
  readonly acks: readonly Acknowledgement[];
  /** The skip that vouches for an imported artifact (a validator may take that one). */
  readonly vouching?: Acknowledgement;
}

export interface FreshnessRefusal {
  readonly reason: RefusalReason;
  readonly detail: string;
}

/**
 * Phrases that frame a task as the continuation of a conversation the session never had
 * ("as we discussed", "like before"): a validator receives none (the canon's "no 'we discussed
 * X earlier' framing"). Refused, not stripped: rewriting a task changes what is checked.
 */
const PRIOR_FRAMING: readonly RegExp[] = [
  /\bas (?:we|you and i|i|you) (?:discussed|agreed|talked about|said|mentioned|decided)\b/i,
  /\b(?:we|you and i) (?:discussed|agreed|talked about|decided)(?: on)? (?:earlier|before|previously|last time)\b/i,
  /\bas (?:discussed|agreed|mentioned|noted|decided) (?:earlier|before|previously|above)\b/i,
  /\blike (?:before|last time)\b/i,
  /\bsame as (?:before|last time)\b/i,
  /\b(?:you|i) (?:said|mentioned|suggested|noted) (?:earlier|before|previously)\b/i,
  /\b(?:earlier|previously) in (?:this|our|the) (?:conversation|chat|discussion|session|thread)\b/i,
  /\b(?:from|in|per) our (?:earlier |previous |last )?(?:conversation|chat|discussion|call|session|thread)\b/i,
  /\bremember (?:when|what) (?:we|you|i)\b/i,
];

/** The prior-conversation framing in `task` (the phrase as written), if any. */
export function priorFraming(task: string): string | undefined {
  for (const pattern of PRIOR_FRAMING) {
    const match = pattern.exec(task);
    if (match) return match[0];
  }
  return undefined;
}

/** Why the session's context is not as fresh as its role requires, or undefined. */
export function freshnessRefusal(input: FreshnessInput): FreshnessRefusal | undefined {
  const { role } = input;
  switch (role.freshness) {
    case 'strict':
      return strict(input);
    case 'fresh':
      if (input.contextMessages > 0) {
        const reads =
          role.requires.length > 0 ? `its ${role.requires.join(' or ')} handoff` : 'its task and handoffs';
        return {
          reason: 'inherited_context',
          detail: `${role.name} (fresh context) does not inherit another session's conversation, it reads ${reads}; it was given ${input.contextMessages} message(s) of prior conversation`,
        };
      }
      return undefined;
    case 'light': {
      if (input.mode === null) return undefined;
      const at = MODES.indexOf(input.mode);
      const later = input.handoffs.filter(
        (r) => !role.requires.includes(r.kind) && MODES.indexOf(PRODUCER_MODE[r.kind]) > at,
      );
      if (later.length === 0) return undefined;
      return {
        reason: 'inherited_context',
        detail: `${role.name} (light context) builds on ${input.mode} and earlier, not on a later mode's context; it was given ${later.map((r) => `${article(r.kind)} handoff (${r.id}, from ${PRODUCER_MODE[r.kind]})`).join(', ')}`,
      };
    }
    default:
      return undefined;
  }
}

function strict(input: FreshnessInput): FreshnessRefusal | undefined {
  const { role } = input;
  const extra = input.handoffs
    .filter((record) => !role.requires.includes(record.kind))
    .map((record) => `${article(record.kind)} handoff (${record.id})`);
  if (input.contextMessages > 0) extra.push(`${input.contextMessages} message(s) of prior conversation`);
  for (const ack of input.acks)
    if (ack !== input.vouching) extra.push(`${article(ack.kind)} acknowledgement`);
  const framing = priorFraming(input.task);
  if (framing) extra.push(`a task framed by a conversation it never had ("${framing}")`);
  if (extra.length === 0) return undefined;
  return {
    reason: 'validator_extra_context',
    detail: `${article(role.name)} takes only the profile, the artifact, its claims and governance; it was also given ${extra.join(', ')}${framing ? '; restate the task as what to check, without referring to an earlier conversation' : ''}`,
  };
}
