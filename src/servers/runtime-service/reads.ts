import { checkProvenance, type JournalEntry, type Runtime } from '../../runtime/index.js';

/** What both doors read from the ledger: the journal filtered as asked, a handoff with its check. */

export interface JournalRead {
  readonly since?: string | undefined;
  readonly type?: string | undefined;
  readonly session?: string | undefined;
  readonly limit?: number | undefined;
}

/** The journal's rows since, of a type, of a session: the newest `limit` (`fallback` when not given). */
export async function readJournalRows(
  runtime: Runtime,
  query: JournalRead,
  fallback: number,
): Promise<JournalEntry[]> {
  let entries = await runtime.journal({
    ...(query.since ? { since: query.since } : {}),
    ...(query.type ? { type: query.type } : {}),
  });
  if (query.session) entries = entries.filter((e) => e.session === query.session);
  return entries.slice(-(query.limit ?? fallback));
}

/** A stored handoff, its sha256, and whether it verifies against its journal row; undefined when there is none. */
export async function readHandoffChecked(
  runtime: Runtime,
  id: string,
): Promise<Record<string, unknown> | undefined> {
  const stored = await runtime.ledger.getHandoff(id);
  if (!stored) return undefined;
  const check = await checkProvenance(runtime.ledger, stored);
  return {
    handoff: stored.record,
    sha256: stored.sha256,
    verified: check.ok,
    ...(check.ok ? { provenance: check.provenance } : { problem: check.problem }),
  };
}
