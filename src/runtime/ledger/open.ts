import { SystemError, UserError } from '../../core/index.js';
import { ledgerDir, ledgerRoot } from '../pipeline/invocation.js';
import { createFileLedger } from './file-ledger.js';
import type { PgLedger } from './pg-ledger.js';
import type { Ledger } from './types.js';

/**
 * Which store a command's ledger lives in: `embedded` (the default: files under the project's
 * `.firstlight/`, the home without a project) or a Postgres URL (`postgres://…`), from
 * `--store` or `runtime.store` in `firstlight.yaml`.
 */
export type StoreSpec = { readonly kind: 'embedded' } | { readonly kind: 'postgres'; readonly url: string };

export const STORE_HELP =
  'where the ledger lives: "embedded" (files under the project\'s .firstlight/, the default) or postgres://USER:PASSWORD@HOST:PORT/DB';

export function parseStore(value: string | undefined, from = '--store'): StoreSpec {
  if (value === undefined || value === '' || value === 'embedded') return { kind: 'embedded' };
  if (/^postgres(ql)?:\/\//.test(value)) {
    try {
      new URL(value);
      return { kind: 'postgres', url: value };
    } catch {
      // falls through to the error below
    }
  }
  throw new UserError(
    `${from} must be "embedded" or a postgres:// URL, not "${value.replace(/:[^:@/]*@/, ':***@')}"`,
    {
      code: 'INVALID_ARGUMENT',
      hint: `pass ${from} embedded, or ${from} postgres://USER:PASSWORD@HOST:5432/DATABASE`,
    },
  );
}

/** A ledger that may hold connections: `close` releases them (a no-op for files). */
export type OpenLedger = Ledger & { close(): Promise<void> };

/** Opens the ledger `store` names; a Postgres one is migrated before it is returned. */
export async function openLedger(
  store: StoreSpec,
  where: { readonly home: string; readonly project?: string | undefined },
): Promise<OpenLedger> {
  const context = { home: where.home, ...(where.project ? { project: where.project } : {}) };
  if (store.kind === 'embedded') {
    const ledger = createFileLedger({ dir: ledgerDir(context), root: ledgerRoot(context) });
    return Object.assign(ledger, { close: async () => {} });
  }
  return openPgLedger(store.url);
}

/** A Postgres ledger, migrated; an unreachable database is a clear STORE_UNAVAILABLE. */
export async function openPgLedger(url: string): Promise<PgLedger> {
  const { createPgLedger } = await import('./pg-ledger.js');
  try {
    return await createPgLedger({ url });
  } catch (error) {
    if (error instanceof SystemError) throw error;
    throw storeUnreachable(url, error);
  }
}

/** Export and import between Postgres and the files form (loaded only when used). */
export async function exportLedger(ledger: PgLedger, dir: string) {
  return (await import('./pg-transfer.js')).exportLedger(ledger, dir);
}
export async function importLedger(ledger: PgLedger, dir: string) {
  return (await import('./pg-transfer.js')).importLedger(ledger, dir);
}

function storeUnreachable(url: string, error: unknown): Error {
  let where = 'the database';
  try {
    const u = new URL(url);
    where = `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {}
  return new SystemError(`cannot open the ledger on Postgres (${where}): ${(error as Error).message}`, {
    code: 'STORE_UNAVAILABLE',
    hint: 'check that Postgres runs and the URL (user, password, database) is right; the runtime creates its tables itself',
  });
}
