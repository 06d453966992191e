import type { Command } from 'commander';
import { existingHome, type HomeOption, print } from '../io.js';

interface RecallOptions extends HomeOption {
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
    .action(async (words: string[], options: RecallOptions) => {
      const { UserError } = await import('../../core/index.js');
      const k = Number(options.k);
      if (!Number.isInteger(k) || k < 1) {
        throw new UserError(`--k must be a positive integer, not "${options.k}"`, {
          code: 'INVALID_ARGUMENT',
          hint: 'pass --k 5',
        });
      }
      const { createMind, openRecallIndex } = await import('../../mind/index.js');
      const home = existingHome(options);
      const mind = createMind({ home, projectDir: process.cwd() });
      const index = openRecallIndex(mind);
      const result = index.recall(words.join(' '), {
        k,
        ...(options.facet ? { facet: options.facet } : {}),
        scope: options.allProjects ? 'all' : mind.memoryScope(),
      });
      print(options.json, result, () => {
        const lines = result.results.map(
          (r, i) =>
            `${i + 1}. ${r.name} (${r.type}${r.project ? `, project ${r.project}` : ''}, score ${r.score}, memory/${r.file})\n   ${r.excerpt}`,
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
