import { detect } from '../detectors.js';
import { type HandoffRecord, newHandoffId } from '../handoffs.js';
import type { JournalWrite } from '../journal.js';
import { CONSUMER_MODE } from '../policy.js';
import type { SessionState } from '../sessions.js';
import { applyVoice } from '../surfaces.js';
import { summarizeTransition } from '../transition.js';
import type { InvokeOutput, InvokeResult } from '../types.js';
import type { Admission } from './check-policy.js';
import type { Composed } from './compose-prompt.js';
import { finishMeta, type Invocation } from './invocation.js';
import type { ResolvedSubstrate } from './resolve-substrate.js';
import type { SessionRun } from './run-session.js';

/**
 * Stage 8, finish: the mode detectors (flags), the voice per field, the handoff stored (its
 * sha256 in its transition's journal row, its override lineage carried on), the journal's end
 * rows, and the session state of an assistant session that yielded the turn.
 */
export async function finish(
  inv: Invocation,
  admission: Admission,
  handoffs: readonly HandoffRecord[],
  resolved: ResolvedSubstrate,
  composed: Composed,
  run: SessionRun,
): Promise<InvokeResult> {
  const { meta, role, mode, profile, baseFields, voice } = inv;
  const { override } = admission;
  const session = meta.session_id;
  const { failure, outcome, prose, data, handoffContent } = run;
  const findingsInput = handoffs.find((r) => r.kind === 'findings')?.content;
  meta.flags = detect({
    mode,
    prose,
    ...(data !== undefined ? { data } : {}),
    ...(handoffContent ? { handoff: handoffContent } : {}),
    denials: meta.denials.length,
    ...(findingsInput ? { findingsInput } : {}),
  });
  const lineage = override ? [...new Set([...admission.lineage, session])] : [...admission.lineage];
  const status: InvokeResult['status'] = failure ? 'failed' : 'completed';
  const produces = role.produces;
  const at = new Date();
  let handoffId: string | undefined;
  const entries: JournalWrite[] = [];
  const voicedHandoff = handoffContent ? applyVoice(handoffContent, voice, 'machine') : undefined;
  if (status === 'completed' && !outcome && produces && voicedHandoff) {
    handoffId = newHandoffId(produces);
    const record: HandoffRecord = {
      id: handoffId,
      kind: produces,
      content: voicedHandoff,
      created: at.toISOString(),
      from_session: session,
      from_role: role.name,
      persona: profile.persona,
      journal: inv.ledger.journalRef(session, at),
      ...(override ? { override_produced: true } : {}),
      ...(lineage.length > 0 ? { override_lineage: lineage } : {}),
      inputs: meta.handoff_inputs,
    };
    const { sha256 } = await inv.ledger.putHandoff(record);
    const summary = summarizeTransition(produces, voicedHandoff);
    entries.push({
      kind: 'transition',
      title: `${mode ?? role.name} → ${CONSUMER_MODE[produces]} (${produces} handoff ${handoffId})`,
      session,
      fields: {
        ...baseFields,
        handoff: handoffId,
        sha256,
        from: meta.handoff_inputs.join(',') || undefined,
        met: summary.met.join(',') || 'none',
        missing: summary.missing.join(',') || undefined,
        deferred: summary.deferred.join(' | ') || 'none',
        carried_forward: summary.carried_forward.join(' | ') || 'none',
        override_produced: override ? true : undefined,
        override_lineage: lineage.join(',') || undefined,
      },
    });
  }
  if (outcome?.type === 'handoff_insufficient') {
    entries.push({
      kind: 'handoff_insufficient',
      title: `${role.name} cannot proceed on ${outcome.handoffs.join(', ') || 'its input'}`,
      session,
      fields: {
        ...baseFields,
        handoffs: outcome.handoffs.join(','),
        missing: outcome.missing.join(' | '),
        proposed_resolution: outcome.proposed_resolution,
      },
    });
  }
  if (outcome?.type === 'turn_yielded') {
    entries.push({
      kind: 'turn_yielded',
      title: `${role.name} asks the caller`,
      session,
      fields: { question: outcome.question },
    });
  }
  entries.push({
    kind: 'session_end',
    title: `${status}${failure ? ` (${failure.code})` : ''}${outcome ? ` (${outcome.type})` : ''}: ${profile.persona} as ${role.name}`,
    session,
    fields: {
      ...baseFields,
      status,
      failure: failure?.code,
      handoff: handoffId,
      flags: meta.flags.join(',') || undefined,
      denials: meta.denials.length || undefined,
      attempts: run.attempts,
    },
  });
  if (override) {
    entries.push({
      kind: 'override_end',
      title: `operator collapsed ${override.modes_collapsed.join(' + ')}: ${status}`,
      session,
      fields: {
        produced: handoffId,
        tool_calls: run.toolCalls.join(',') || 'none',
        denied: meta.denials.map((d) => d.tool).join(',') || 'none',
        tool_set: meta.tools.join(',') || undefined,
        flags: meta.flags.join(',') || undefined,
      },
    });
  }
  const state: SessionState = {
    id: session,
    profile: profile.file,
    persona: profile.persona,
    role: role.name,
    mode,
    surface: inv.surface,
    engagement: inv.request.engagement,
    voice,
    status: outcome?.type === 'turn_yielded' ? 'yielded' : status,
    messages: composed.messages,
    tools: meta.tools,
    handoffs: meta.handoff_inputs,
    created: admission.prior?.created ?? inv.startedAt.toISOString(),
    updated: at.toISOString(),
  };
  if (state.status === 'yielded' || admission.prior) await inv.ledger.putSession(state);
  await inv.ledger.appendJournal(entries, at);
  const lineageField = lineage.length > 0 ? { override_lineage: lineage } : {};
  const output: InvokeOutput | null =
    status === 'completed'
      ? {
          text: applyVoice(prose, voice, 'human'),
          ...(data !== undefined ? { data: applyVoice(data, voice, 'machine') } : {}),
          ...(handoffId && voicedHandoff
            ? { handoff: { id: handoffId, kind: produces!, content: voicedHandoff } }
            : {}),
          fields: { text: 'human', data: 'machine', handoff: 'machine' },
          ...(override ? { override_produced: true as const } : {}),
          ...lineageField,
        }
      : null;
  return {
    status,
    meta: finishMeta(
      inv,
      {
        ...(failure ? { failure_reason: failure.code, detail: failure.detail } : {}),
        substrate: resolved.substrate.kind,
        ...(resolved.sandbox.meta ? { sandbox: resolved.sandbox.meta } : {}),
        ...(handoffId ? { handoff_id: handoffId } : {}),
        ...(override
          ? {
              override: { modes_collapsed: override.modes_collapsed, reason: override.reason },
              override_produced: true,
            }
          : {}),
        ...lineageField,
        usage: run.usage,
      },
      run.substrateMs,
    ),
    output,
    ...(outcome ? { outcome } : {}),
  };
}
