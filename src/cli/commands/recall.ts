import { type Command, Option } from 'commander';
import { HOME_HELP, JSON_HELP, numberOption, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';

interface RecallOptions extends HomeOption {
  limit: string | number;
  /** The older name of --limit, still accepted. */
  k?: string;
  facet?: string;
  json?: boolean;
}

export function registerRecall(program: Command): void {
  const recall = program
    .command('recall')
    .description('search memory (BM25 over name, description, tags, body) and print the best excerpts')
    .argument('<query...>', 'what to look for, in words')
    .addOption(numberOption('--limit <n>', 'how many results', 5))
    .addOption(new Option('--k <n>', 'the older name of --limit').hideHelp())
    .option('--facet <key:value>', 'filter by a frontmatter field or tag, e.g. type:feedback, tag:portal')
    .option('--home <dir>', HOME_HELP)
    .option('--json', JSON_HELP);
  withExamples(recall, [
    'firstlight recall deploy freeze',
    'firstlight recall squash merges --facet type:feedback --limit 3 --json',
  ]).action(async (words: string[], options: RecallOptions) => {
    const { existingHome, positiveInt, print } = await import('../io.js');
    const k = options.k === undefined ? positiveInt('--limit', options.limit) : positiveInt('--k', options.k);
    const { createMind, openRecallIndex } = await import('../../mind/index.js');
    const home = existingHome(options);
    const mind = createMind({ home });
    const index = openRecallIndex(mind);
    const result = index.recall(words.join(' '), { k, ...(options.facet ? { facet: options.facet } : {}) });
    print(options.json, result, () => {
      const lines = result.results.map(
        (r, i) => `${i + 1}. ${r.name} (${r.type}, score ${r.score}, memory/${r.file})\n   ${r.excerpt}`,
      );
      if (lines.length === 0) lines.push(`no memory matches "${result.query}"`);
      if (result.skipped.length > 0) {
        lines.push(
          `skipped ${result.skipped.length} malformed file(s): ${result.skipped.map((s) => `${s.file} (${s.problem})`).join('; ')}`,
        );
      }
      return lines.join('\n');
    });
    // After printing, so saving the index (a first build, another process's change) never
    // delays the answer: close() saves it.
    index.close();
    mind.close();
  });
}
