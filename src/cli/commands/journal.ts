import type { Command } from 'commander';
import { type HomeOption, homeFrom, print } from '../io.js';
import { projectFor } from './invoke.js';

interface JournalOptions extends HomeOption {
  since?: string;
  type?: string;
  project?: string;
  json?: boolean;
}

export function registerJournal(program: Command): void {
  program
    .command('journal')
    .description("print the runtime's DOLCHEO journal (sessions, transitions, refusals, denials, overrides)")
    .option('--since <when>', 'an ISO date or time, or a span back from now (30m, 2h, 7d)')
    .option(
      '--type <t>',
      'a DOLCHEO letter (D, O, L, C, H, E), a kind (refusal, transition, denial, …) or a facet (open)',
    )
    .option(
      '--project <dir>',
      'project whose .firstlight/journal/ to read (default: found from here, else the home)',
    )
    .option('--home <dir>', 'home directory (default: $FIRSTLIGHT_HOME or ~/.firstlight)')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      [
        '',
        'Files: <project>/.firstlight/journal/YYYY-MM-DD.tsv (the home without a project), 8 columns:',
        'type typeName facet quality_score quality_max quality_level title content; the headerless',
        '3-column form (LETTER title content) is read too.',
      ].join('\n'),
    )
    .action(async (options: JournalOptions) => {
      const { join } = await import('node:path');
      const { readJournal, ledgerDir } = await import('../../runtime/index.js');
      const home = homeFrom(options);
      const project = await projectFor(options.project, home);
      const dir = join(ledgerDir({ home, ...(project ? { project } : {}) }), 'journal');
      const entries = readJournal(dir, {
        ...(options.since ? { since: options.since } : {}),
        ...(options.type ? { type: options.type } : {}),
      });
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
