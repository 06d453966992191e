import { readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { StoredHandoff } from './handoffs.js';
import { parseRow } from './journal.js';

/**
 * Provenance by content hash. Every stored handoff's sha256 is in the journal row that stored
 * it — its transition (a session produced it) or its import (brought in from a file) — and the
 * handoff names that row as `FILE#SESSION`, FILE relative to the ledger's root (the project, or
 * the home without one), so a moved or cloned project keeps a valid ledger. Reading a handoff
 * checks the file against its row: a file changed after it was stored is refused, naming it.
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

/** `FILE#SESSION` for a journal file, FILE relative to `root` with forward slashes. */
export function journalRef(root: string, journalFile: string, session: string): string {
  return `${relative(root, journalFile).split(sep).join('/')}#${session}`;
}

/**
 * Checks a stored handoff against the journal row its record names: the row must exist, name
 * this handoff and hold the sha256 of the file as it is now.
 */
export function checkProvenance(root: string, stored: StoredHandoff): ProvenanceCheck {
  const { record, file, sha256 } = stored;
  const where = relative(root, file) || file;
  const ref = record.journal;
  const at = ref?.lastIndexOf('#') ?? -1;
  if (!ref || at <= 0) {
    return {
      ok: false,
      problem: `handoff ${record.id} (${where}) names no journal row: the ledger has no record of it (written outside the runtime?)`,
    };
  }
  const journalPath = ref.slice(0, at);
  const session = ref.slice(at + 1);
  const journalFile = isAbsolute(journalPath) ? journalPath : resolve(root, journalPath);
  let text: string;
  try {
    text = readFileSync(journalFile, 'utf8');
  } catch {
    return {
      ok: false,
      problem: `handoff ${record.id} (${where}) names journal row ${ref}, and that journal file is missing`,
    };
  }
  const row = findRow(text, journalFile, session, record.id);
  if (!row) {
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
    provenance: {
      via: row.kind,
      session,
      role: row.fields.role ?? '',
      mode: row.fields.mode ?? 'none',
    },
  };
}

/**
 * The `transition` or `import` row of `session` that stores handoff `id`. Rows are scanned as
 * text first (a day's journal holds many sessions), and only candidates are parsed.
 */
function findRow(
  text: string,
  file: string,
  session: string,
  id: string,
): { kind: 'transition' | 'import'; fields: Readonly<Record<string, string>> } | undefined {
  const sessionNeedle = `session=${session}`;
  const idNeedle = `handoff=${id}`;
  for (const line of text.split('\n')) {
    if (!line.includes(sessionNeedle) || !line.includes(idNeedle)) continue;
    const entry = parseRow(line, file);
    if (entry?.kind !== 'transition' && entry?.kind !== 'import') continue;
    if (entry.fields.session === session && entry.fields.handoff === id)
      return { kind: entry.kind, fields: entry.fields };
  }
  return undefined;
}
