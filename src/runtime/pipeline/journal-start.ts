import type { HandoffRecord } from '../handoffs.js';
import type { JournalWrite } from '../journal.js';
import type { SessionSandbox } from '../substrates/index.js';
import type { Admission } from './check-policy.js';
import type { Invocation } from './invocation.js';
import type { LockedTools } from './lock-tools.js';

/**
 * Stage 5, journal the start: the session (a continued one takes its own id back here), every
 * handoff imported from a file (stored with its sha256 in an `import` row), the override and
 * any acknowledged reversion or skip. Returns the handoffs the session reads, as stored.
 */
export async function journalStart(
  inv: Invocation,
  admission: Admission,
  tools: LockedTools,
  sandbox: SessionSandbox,
  /** More fields for the start row (a subscribed session's type, policy, channels). */
  extra: Readonly<Record<string, string | undefined>> = {},
): Promise<HandoffRecord[]> {
  const { meta, role, mode, profile, baseFields } = inv;
  if (admission.prior) meta.session_id = admission.prior.id;
  const session = meta.session_id;
  const at = new Date();
  const entries: JournalWrite[] = [];
  const records: HandoffRecord[] = [];
  for (const { record, stored } of admission.handoffs) {
    if (stored) {
      records.push(record);
      continue;
    }
    // An import: stored now, its hash in this session's `import` row, which the record names.
    const imported: HandoffRecord = { ...record, journal: inv.ledger.journalRef(session, at) };
    const { sha256 } = await inv.ledger.putHandoff(imported);
    records.push(imported);
    entries.push({
      kind: 'import',
      title: `${record.kind} handoff ${record.id} from ${record.imported_from ?? 'a file'}`,
      session,
      fields: { handoff: record.id, kind: record.kind, sha256, source: record.imported_from },
    });
  }
  meta.handoff_inputs = records.map((r) => r.id);
  meta.tools = [...tools.locked.keys()];
  meta.removed_tools = [...tools.removed];
  meta.acknowledgements = admission.acks.map((a) => ({ kind: a.kind, acknowledgement: a.acknowledgement }));
  entries.unshift({
    kind: 'session_start',
    title: `${profile.persona} as ${role.name}${mode ? ` in ${mode}` : ''}${admission.prior ? ' (continued)' : ''}`,
    session,
    fields: {
      ...baseFields,
      voice: inv.voice,
      handoffs: meta.handoff_inputs.join(',') || undefined,
      tools: meta.tools.join(',') || undefined,
      task_servers: Object.keys(inv.request.servers ?? {}).join(',') || undefined,
      sandbox: sandbox.journal,
      invocation: inv.request.invocation?.id,
      attempt: inv.request.invocation?.attempt,
      reason: inv.request.invocation?.reason,
      ...extra,
    },
  });
  for (const ack of admission.acks) {
    const vouches = ack.kind === 'skip' && admission.vouched.length > 0;
    entries.push({
      kind: 'acknowledgement',
      title: vouches
        ? `skip: ${admission.vouched.join(', ')} accepted as imported, not built in this ledger`
        : `${ack.kind} into ${mode ?? role.name}`,
      session,
      fields: {
        acknowledgement: ack.acknowledgement,
        source: ack.source,
        imported: vouches ? admission.vouched.join(',') : undefined,
      },
    });
  }
  if (admission.override) {
    entries.push({
      kind: 'override_start',
      title: `operator collapsed ${admission.override.modes_collapsed.join(' + ')}`,
      session,
      fields: {
        reason: admission.override.reason,
        acknowledged_risks: admission.override.acknowledged_risks.join(' | '),
      },
    });
  }
  await inv.ledger.appendJournal(entries, at);
  return records;
}
