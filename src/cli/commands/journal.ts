import type { Command } from 'commander';
import { HOME_HELP, JSON_HELP, PROJECT_OR_HOME_HELP, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';

interface JournalOptions extends HomeOption {
  since?: string;
  type?: string;
  project?: string;
  store?: string;
  json?: boolean;
}

export function registerJournal(program: Command): void {
  const journal = program
    .command('journal')
    .description("print the runtime's DOLCHEO journal (sessions, transitions, refusals, denials, overrides)")
    .option('--since <when>', 'an ISO date or time, or a span back from now (30m, 2h, 7d)')
    .option(
      '--type <t>',
      'a DOLCHEO letter (D, O, L, C, H, E), a kind (refusal, transition, denial, …) or a facet (open)',
    )
    .option('--project <dir>', PROJECT_OR_HOME_HELP)
    .option(
      '--store <store>',
      'embedded, or the postgres:// URL of a shared ledger (default: runtime.store in firstlight.yaml)',
    )
    .option('--home <dir>', HOME_HELP)
    .option('--json', JSON_HELP);
  withExamples(
    journal,
    ['firstlight journal --since 1h', 'firstlight journal --type refusal --json'],
    [
      'Files: <project>/.firstlight/journal/YYYY-MM-DD.tsv (the home without a project), 8 columns:',
      'type typeName facet quality_score quality_max quality_level title content; the headerless',
      '3-column form (LETTER title content) is read too.',
    ],
  ).action(async (options: JournalOptions) => {
    const { join } = await import('node:path');
    const { homeFrom, print } = await import('../io.js');
    const { projectFor } = await import('./invoke-project.js');
    const { storeFor } = await import('./runtime-ledger.js');
    const { readJournal, ledgerDir, openLedger } = await import('../../runtime/index.js');
    const home = homeFrom(options);
    const query = {
      ...(options.since ? { since: options.since } : {}),
      ...(options.type ? { type: options.type } : {}),
    };
    const store = await storeFor(options.store, home);
    let dir: string;
    let entries: Awaited<ReturnType<typeof readJournal>>;
    if (store.kind === 'postgres') {
      const ledger = await openLedger(store, { home });
      try {
        dir = ledger.location;
        entries = await ledger.readJournal(query);
      } finally {
        await ledger.close();
      }
    } else {
      const project = await projectFor(options.project, home);
      dir = join(ledgerDir({ home, ...(project ? { project } : {}) }), 'journal');
      entries = readJournal(dir, query);
    }
    print(options.json, { journal: dir, entries }, () => {
      if (entries.length === 0) return `no journal entries in ${dir}`;
      return entries
        .map((e) => {
          // The runtime's rows by their fields (unescaped); anyone else's content as written.
          const rest = e.kind
            ? Object.entries(e.fields)
                .filter(([key]) => key !== 'at' && key !== 'session')
                .map(([key, value]) => `${key}=${value}`)
                .join('; ')
            : e.content;
          return `${(e.at ?? '').slice(0, 19).replace('T', ' ')}  ${e.type}${e.facet ? `(${e.facet})` : ''}  ${e.title}${e.session ? `  [${e.session}]` : ''}${rest ? `\n      ${rest}` : ''}`;
        })
        .join('\n');
    });
  });
}
