import type { StoredHandoff } from './handoffs.js';
import type { Ledger } from './ledger/index.js';

/**
 * Provenance by content hash. Every stored handoff's sha256 is in the journal row that stored
 * it — its transition (a session produced it) or its import (brought in from a file) — and the
 * handoff names that row by the reference the ledger gave (`FILE#SESSION` in the embedded
 * store, FILE relative to the project). Reading a handoff checks it against its row: a handoff
 * changed after it was stored is refused, naming it.
 */

/** How a stored handoff came into the ledger, as its journal row says. */
export interface Provenance {
  /** `transition`: a session of this ledger produced it; `import`: copied in from a file. */
  readonly via: 'transition' | 'import';
  readonly session: string;
  /** The producing session's role and mode (`none` for an unbound role). */
  readonly role: string;
  readonly mode: string;
}

export type ProvenanceCheck =
  | { readonly ok: true; readonly provenance: Provenance }
  | { readonly ok: false; readonly problem: string };

/**
 * Checks a stored handoff against the journal row its record names: the row must exist, name
 * this handoff and hold the sha256 of the handoff as stored now.
 */
export async function checkProvenance(
  ledger: Ledger,
  stored: StoredHandoff,
  where = stored.location,
): Promise<ProvenanceCheck> {
  const { record, sha256 } = stored;
  const ref = record.journal;
  const at = ref?.lastIndexOf('#') ?? -1;
  if (!ref || at <= 0) {
    return {
      ok: false,
      problem: `handoff ${record.id} (${where}) names no journal row: the ledger has no record of it (written outside the runtime?)`,
    };
  }
  const session = ref.slice(at + 1);
  const row = await ledger.handoffRow(ref, record.id);
  if (row === 'no_such_journal') {
    return {
      ok: false,
      problem: `handoff ${record.id} (${where}) names journal row ${ref}, and that journal file is missing`,
    };
  }
  if (row === 'no_such_row') {
    return {
      ok: false,
      problem: `handoff ${record.id} (${where}) names journal row ${ref}, and that file has no row storing it`,
    };
  }
  if (row.fields.sha256 !== sha256) {
    return {
      ok: false,
      problem: `handoff ${record.id} (${where}) was changed after it was stored: its sha256 is ${sha256.slice(0, 12)}…, its journal row (${ref}) records ${(row.fields.sha256 ?? 'none').slice(0, 12)}…`,
    };
  }
  return {
    ok: true,
    provenance: { via: row.kind, session, role: row.fields.role ?? '', mode: row.fields.mode ?? 'none' },
  };
}
