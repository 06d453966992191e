import { resolve } from 'node:path';
import { NotFoundError, UserError } from '../../core/index.js';
import { freshnessRefusal } from '../freshness.js';
import {
  type Acknowledgement,
  type HandoffRecord,
  missingFields,
  resolveHandoffInput,
  type StoredHandoff,
} from '../handoffs.js';
import { type Override, overrideProblems, readOverrideFile } from '../override.js';
import {
  type Access,
  admits,
  article,
  type HandoffKind,
  MODE_ROLE,
  type Mode,
  PRODUCER_MODE,
  ROLE_POLICY,
  SURFACE_ENGAGEMENT,
} from '../policy.js';
import { checkProvenance } from '../provenance.js';
import type { SessionState } from '../sessions.js';
import { staticToolClass, widestAccess } from '../tools.js';
import type { InvokeResult } from '../types.js';
import { type Invocation, refuse } from './invocation.js';

/**
 * Stage 2, check the policy: the override, a continuation (same role and mode, the tool set
 * it locked), the engagement against the surface, every handoff (its content hash against its
 * journal row; a validator's artifact traced to the session that built it), fresh context, the
 * requested tools against the role's access, and the handoffs the role needs. A refusal is
 * journaled and returned; nothing has started.
 */

/** One handoff the session reads: already in the ledger, or a file it imports at start. */
export interface AdmittedHandoff {
  readonly record: HandoffRecord;
  /** The stored handoff (verified); undefined for a file imported when the session starts. */
  readonly stored?: StoredHandoff;
}

/** What the policy admitted, for the stages after it. */
export interface Admission {
  readonly override?: Override;
  /** The session's tool access: the role's, or under an override the widest of the collapsed modes'. */
  readonly access: Access;
  /** The session being continued (an assistant session that yielded the turn). */
  readonly prior?: SessionState;
  readonly handoffs: readonly AdmittedHandoff[];
  readonly acks: readonly Acknowledgement[];
  /** Handoffs no session of this ledger produced, accepted on a skip acknowledgement. */
  readonly vouched: readonly string[];
  /** Override sessions upstream of the inputs (transitively), for the output's lineage. */
  readonly lineage: readonly string[];
}

export async function checkPolicy(inv: Invocation): Promise<Admission | InvokeResult> {
  const { request, role, mode, profile, ledger } = inv;

  let override: Override | undefined;
  if (request.override !== undefined && request.override !== null) {
    const raw =
      typeof request.override === 'string'
        ? readOverrideFile(resolve(inv.context.cwd, request.override))
        : request.override;
    const problems = overrideProblems(raw, mode);
    if (problems.length > 0) return refuse(inv, 'invalid_override', problems.join('; '));
    override = raw as Override;
  }
  const collapsed: readonly Mode[] = override?.modes_collapsed ?? [];
  const access = override
    ? widestAccess([role.access, ...collapsed.map((m) => ROLE_POLICY[MODE_ROLE[m]].access)])
    : role.access;

  let continued: SessionState | undefined;
  if (request.continue) {
    const found = await continuation(inv, request.continue);
    if ('refused' in found) return found.refused;
    continued = found.prior;
  }

  const fixedEngagement = SURFACE_ENGAGEMENT[inv.surface];
  if (fixedEngagement && fixedEngagement !== request.engagement) {
    return refuse(
      inv,
      'engagement_surface',
      `surface ${inv.surface} takes engagement ${fixedEngagement} only`,
    );
  }

  // The handoffs: each stored one checked against its journal row before anything reads it.
  const inputs = await Promise.all(
    (request.handoffs ?? []).map((ref) => resolveHandoffInput(ref, { ledger, cwd: inv.context.cwd })),
  );
  const handoffs: AdmittedHandoff[] = [];
  const untraced: HandoffRecord[] = [];
  const freshnessSuspended = collapsed.length > 1 && mode !== null && collapsed.includes(mode);
  const handoffRuleSuspended = role.requires.some((kind) => collapsed.includes(PRODUCER_MODE[kind]));
  for (const input of inputs) {
    if (input.type === 'file') {
      handoffs.push({ record: input.record });
      if (mustTrace(inv, input.record.kind, handoffRuleSuspended)) untraced.push(input.record);
    }
    if (input.type !== 'stored') continue;
    const check = await checkProvenance(ledger, input.stored);
    if (!check.ok) return refuse(inv, 'handoff_unverified', check.problem);
    const { record } = input.stored;
    handoffs.push({ record, stored: input.stored });
    const traced =
      check.provenance.via === 'transition' &&
      check.provenance.mode === PRODUCER_MODE[record.kind] &&
      record.from_session === check.provenance.session;
    if (!traced && mustTrace(inv, record.kind, handoffRuleSuspended)) untraced.push(record);
  }
  const acks = inputs.flatMap((input) => (input.type === 'acknowledgement' ? [input.ack] : []));
  const notFound = inputs.flatMap((input) => (input.type === 'not_found' ? [input.ref] : []));
  // A skip acknowledgement vouches for handoffs no builder of this ledger produced (imports).
  const vouching = untraced.length > 0 ? acks.find((ack) => ack.kind === 'skip') : undefined;

  if (continued && request.tools && request.tools.length > 0) {
    const outside = request.tools.filter((name) => !continued.tools.includes(name));
    if (outside.length > 0) {
      return refuse(
        inv,
        'tool_set_locked',
        `session ${continued.id} locked its tool set at start (${continued.tools.join(', ') || 'none'}); ${outside.join(', ')} cannot join it`,
      );
    }
  }

  if (!freshnessSuspended) {
    const stale = freshnessRefusal({
      role,
      mode,
      task: request.task,
      handoffs: handoffs.map(({ record }) => record),
      contextMessages: request.context?.length ?? 0,
      acks,
      ...(vouching ? { vouching } : {}),
    });
    if (stale) return refuse(inv, stale.reason, stale.detail);
  }

  if (request.tools && request.tools.length > 0) {
    const forbidden = request.tools.filter((name) => {
      const cls = staticToolClass(name, profile.servers, profile.classify);
      return cls !== undefined && !admits(access, cls);
    });
    if (forbidden.length > 0) return mutatingRefusal(inv, access, forbidden, override !== undefined);
  }

  if (!continued) {
    const store = `the ledger (${ledger.location})`;
    if (notFound.length > 0) {
      return role.requires.includes('artifact')
        ? refuse(
            inv,
            'no_builder_handoff',
            `no handoff ${notFound.join(', ')} in ${store}: the builder has not produced one`,
          )
        : refuse(inv, 'missing_handoff', `no handoff ${notFound.join(', ')} in ${store} and no such file`);
    }
    if (role.requires.length > 0 && !handoffRuleSuspended) {
      const matching = handoffs.filter(({ record }) => role.requires.includes(record.kind));
      if (matching.length === 0 && acks.length === 0) {
        const got = handoffs.length === 0 ? 'none' : handoffs.map(({ record }) => record.kind).join(', ');
        return refuse(
          inv,
          'missing_handoff',
          `${role.name} needs ${article(role.requires.join(' or '))} handoff (or a reversion/skip acknowledgement); got ${got}`,
        );
      }
      for (const { record } of matching) {
        const missing = missingFields(record.kind, record.content);
        if (missing.length > 0)
          return refuse(
            inv,
            'incomplete_handoff',
            `${record.kind} handoff ${record.id} lacks: ${missing.join(', ')}`,
          );
      }
    }
    if (untraced.length > 0 && !vouching) {
      const names = untraced.map((r) => `${r.kind} handoff ${r.id}`).join(', ');
      return refuse(
        inv,
        'no_builder_handoff',
        `${names} traces to no ${untraced.map((r) => MODE_ROLE[PRODUCER_MODE[r.kind]]).join('/')} session's transition in this ledger (imported, not built here); to accept it as imported, pass also a skip acknowledgement ({kind: skip, acknowledgement: "…"})`,
      );
    }
  }

  const lineage = new Set<string>();
  for (const { record } of handoffs) for (const id of record.override_lineage ?? []) lineage.add(id);
  return {
    ...(override ? { override } : {}),
    access,
    ...(continued ? { prior: continued } : {}),
    handoffs,
    acks,
    vouched: vouching ? untraced.map((r) => r.id) : [],
    lineage: [...lineage],
  };
}

/** A validation session's artifact (or revision) must trace to the session that built it. */
function mustTrace(inv: Invocation, kind: HandoffKind, suspended: boolean): boolean {
  return inv.mode === 'validation' && inv.role.requires.includes(kind) && !suspended;
}

export function mutatingRefusal(
  inv: Invocation,
  access: Access,
  names: readonly string[],
  underOverride: boolean,
): Promise<InvokeResult> {
  return refuse(
    inv,
    'mutating_tools_for_role',
    `${inv.role.name} (${access}) may not hold ${names.join(', ')}${underOverride ? ' even under the override' : ''}`,
  );
}

/**
 * The session a `--continue` names: it must exist, be in the same role and mode (else
 * `same_session_transition`), and be waiting for the caller's turn.
 */
async function continuation(
  inv: Invocation,
  id: string,
): Promise<{ prior: SessionState } | { refused: InvokeResult }> {
  const prior = await inv.ledger.getSession(id);
  // Only sessions that yielded the turn keep a state file; any other session is known by its
  // journal start row, which is enough to refuse continuing it into another mode.
  const known = prior ?? (await sessionFromJournal(inv, id));
  if (!known) {
    throw new NotFoundError(
      `no session "${id}" in ${inv.ledger.location}`,
      'set continue to the session_id an assistant session returned (in the same project)',
    );
  }
  if (known.role !== inv.role.name || known.mode !== inv.mode) {
    const detail = `session ${id} is ${known.role} (${known.mode ?? 'no mode'}); ${inv.role.name} (${inv.mode ?? 'no mode'}) needs a fresh session with an encoded handoff`;
    return { refused: await refuse(inv, 'same_session_transition', detail) };
  }
  if (prior?.status !== 'yielded') {
    throw new UserError(`session ${id} is ${prior?.status ?? 'over'}, not waiting for a turn`, {
      code: 'SESSION_NOT_WAITING',
      hint: 'only an assistant session that asked a question can be continued; start a fresh session instead',
    });
  }
  return { prior };
}

/** A session's role and mode from its journal start row (sessions without a state file). */
async function sessionFromJournal(
  inv: Invocation,
  id: string,
): Promise<{ role: string; mode: Mode | null } | undefined> {
  const start = await inv.ledger.sessionStart(id);
  if (!start) return undefined;
  const mode = start.fields.mode;
  return { role: start.fields.role ?? '', mode: !mode || mode === 'none' ? null : (mode as Mode) };
}
