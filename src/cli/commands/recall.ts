import type { Command } from 'commander';
import type { HomeOption } from '../io.js';

export interface RecallOptions extends HomeOption {
  k: string;
  facet?: string;
  allProjects?: boolean;
  json?: boolean;
}

export function registerRecall(program: Command): void {
  program
    .command('recall')
    .description('search memory (BM25 over name, description, tags, body) and print the best excerpts')
    .argument('<query...>', 'what to look for, in words')
    .option('--k <n>', 'how many results', '5')
    .option('--facet <key:value>', 'filter by a frontmatter field or tag, e.g. type:feedback, tag:portal')
    .option(
      '--all-projects',
      "search every project's memories (default: the project around the current directory's, and the global ones)",
    )
    .option('--home <dir>', 'home directory (default: $FIRSTLIGHT_HOME or ~/.firstlight)')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nExample:\n  firstlight recall deploy checklist --k 3 --facet type:feedback')
    .action(async (words: string[], options: RecallOptions) => {
      const { runRecall } = await import('../recall-run.js');
      await runRecall(words, options);
    });
}
