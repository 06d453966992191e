import { type Command, Option } from 'commander';
import { HOME_HELP, JSON_HELP, numberOption, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';

/** What recall-run.ts takes: `k` is --limit (or --k, its older name), as typed. */
export interface RecallOptions extends HomeOption {
  k: string;
  facet?: string;
  allProjects?: boolean;
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
    .description('search memory (BM25 over name, description, tags, body) and print the best excerpts')
    .argument('<query...>', 'what to look for, in words')
    .addOption(numberOption('--limit <n>', 'how many results', 5))
    .addOption(new Option('--k <n>', 'the older name of --limit').hideHelp())
    .option('--facet <key:value>', 'filter by a frontmatter field or tag, e.g. type:feedback, tag:portal')
    .option(
      '--all-projects',
      "search every project's memories (default: the project around the current directory's, and the global ones)",
    )
    .option('--home <dir>', HOME_HELP)
    .option('--json', JSON_HELP);
  withExamples(recall, [
    'firstlight recall deploy freeze',
    'firstlight recall deploy checklist --limit 3 --facet type:feedback',
    'firstlight recall squash merges --all-projects --json',
  ]).action(async (words: string[], flags: RecallFlags) => {
    const { positiveInt } = await import('../io.js');
    const { runRecall } = await import('../recall-run.js');
    const { limit, k, ...rest } = flags;
    const n = k === undefined ? positiveInt('--limit', limit) : positiveInt('--k', k);
    await runRecall(words, { ...rest, k: String(n) });
  });
}
