import { type Command, Option } from 'commander';
import { HOME_HELP, JSON_HELP, numberOption, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';

/** What recall-run.ts takes: `k` is --limit (or --k, its older name), as typed. */
export interface RecallOptions extends HomeOption {
  k: string;
  facet?: string;
  allProjects?: boolean;
  /** memory (the default), events or all, as typed. */
  source?: string;
  since?: string;
  until?: string;
  json?: boolean;
}

interface RecallFlags extends Omit<RecallOptions, 'k'> {
  limit: string | number;
  /** The older name of --limit, still accepted. */
  k?: string;
}

export function registerRecall(program: Command): void {
  const recall = program
    .command('recall')
    .description(
      'search memory (BM25 over name, description, tags, body), or what past sessions did (--source events), and print the best excerpts',
    )
    .argument('<query...>', 'what to look for, in words')
    .addOption(numberOption('--limit <n>', 'how many results', 5))
    .addOption(new Option('--k <n>', 'the older name of --limit').hideHelp())
    .option('--facet <key:value>', 'filter by a frontmatter field or tag, e.g. type:feedback, tag:portal')
    .option(
      '--all-projects',
      "search every project's memories (default: the project around the current directory's, and the global ones)",
    )
    .addOption(
      new Option(
        '--source <source>',
        'memory (the default), events (observed tool calls, observe/reflect, cautions fired: each names its session, host and time) or all',
      ).choices(['memory', 'events', 'all']),
    )
    .option('--since <when>', 'only what is about this time or later: 30m, 2h, 7d, 1w back, or an ISO date')
    .option('--until <when>', 'only what is about this time or earlier (as --since)')
    .option('--home <dir>', HOME_HELP)
    .option('--json', JSON_HELP);
  withExamples(recall, [
    'firstlight recall deploy freeze',
    'firstlight recall deploy checklist --limit 3 --facet type:feedback',
    'firstlight recall squash merges --all-projects --json',
    'firstlight recall gateway timeout --source events --since 7d',
    'firstlight recall what did we do about the gateway in early October --source all',
  ]).action(async (words: string[], flags: RecallFlags) => {
    const { positiveInt } = await import('../io.js');
    const { runRecall } = await import('../recall-run.js');
    const { limit, k, ...rest } = flags;
    const n = k === undefined ? positiveInt('--limit', limit) : positiveInt('--k', k);
    await runRecall(words, { ...rest, k: String(n) });
  });
}
