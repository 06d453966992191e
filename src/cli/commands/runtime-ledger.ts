import type { Command } from 'commander';
import { HOME_HELP, JSON_HELP, PROJECT_OR_HOME_HELP, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';

/**
 * Where a command's ledger lives, and moving a Postgres ledger to and from the embedded files
 * form (`runtime export-ledger`, `runtime import-ledger`).
 */

/** The store `--store` names, else `runtime.store` in the home's firstlight.yaml, else embedded. */
export async function storeFor(flag: string | undefined, home: string) {
  const { join } = await import('node:path');
  const { loadSettings } = await import('../../core/index.js');
  const { parseStore } = await import('../../runtime/index.js');
  if (flag !== undefined) return parseStore(flag);
  return parseStore(loadSettings(join(home, 'firstlight.yaml')).settings.runtime.store, 'runtime.store');
}

interface TransferOptions extends HomeOption {
  store?: string;
  project?: string;
  dir?: string;
  json?: boolean;
}

export function registerLedgerTransfer(runtime: Command): void {
  for (const direction of ['export', 'import'] as const) {
    const command = runtime
      .command(`${direction}-ledger`)
      .description(
        direction === 'export'
          ? 'write a Postgres ledger in the embedded files form (TSV journal, JSON handoffs, records), byte for byte what the embedded store writes'
          : 'store an embedded ledger (its files) into an empty Postgres ledger, every handoff still verifying',
      )
      .option('--store <url>', 'the Postgres ledger (default: runtime.store in firstlight.yaml)')
      .option(
        '--dir <dir>',
        direction === 'export'
          ? "where to write (default: the project's .firstlight/, which must hold no ledger yet)"
          : "the ledger to read (default: the project's .firstlight/)",
      )
      .option('--project <dir>', PROJECT_OR_HOME_HELP)
      .option('--home <dir>', HOME_HELP)
      .option('--json', JSON_HELP);
    withExamples(command, [
      direction === 'export'
        ? 'firstlight runtime export-ledger --store postgres://firstlight@db:5432/firstlight --dir ./ledger'
        : 'firstlight runtime import-ledger --store postgres://firstlight@db:5432/firstlight --dir .firstlight',
    ]).action(async (options: TransferOptions) => {
      const { resolve } = await import('node:path');
      const { UserError } = await import('../../core/index.js');
      const { existingHome, print } = await import('../io.js');
      const { projectFor } = await import('./invoke-project.js');
      const { ledgerDir, openPgLedger, exportLedger, importLedger } = await import('../../runtime/index.js');
      const home = existingHome(options);
      const store = await storeFor(options.store, home);
      if (store.kind !== 'postgres') {
        throw new UserError(`${direction}-ledger needs a Postgres store`, {
          code: 'INVALID_ARGUMENT',
          hint: 'pass --store postgres://USER:PASSWORD@HOST:5432/DB, or set runtime.store in firstlight.yaml',
        });
      }
      const project = options.dir ? undefined : await projectFor(options.project, home);
      const dir = resolve(options.dir ?? ledgerDir({ home, ...(project ? { project } : {}) }));
      const ledger = await openPgLedger(store.url);
      try {
        const counts =
          direction === 'export' ? await exportLedger(ledger, dir) : await importLedger(ledger, dir);
        print(options.json, { store: ledger.location, dir, ...counts }, () =>
          [
            `${direction === 'export' ? 'exported' : 'imported'} ${ledger.location} ${direction === 'export' ? '→' : '←'} ${dir}`,
            `  journal rows ${counts.journal}, handoffs ${counts.handoffs}, sessions ${counts.sessions}, invocations ${counts.invocations} (events ${counts.events}), subscriptions ${counts.subscriptions} (emissions ${counts.emissions})`,
          ].join('\n'),
        );
      } finally {
        await ledger.close();
      }
    });
  }
}
