import { UserError } from '../core/index.js';
import { projectIdentity } from '../guidance/index.js';
import { openHomeRecall } from '../mind/index.js';
import type { RecallOptions } from './commands/recall.js';
import { existingHome, print } from './io.js';

/**
 * `firstlight recall`: main.ts runs well-formed calls here before commander loads (see
 * recall-entry.ts); the command's action (commands/recall.ts) runs the rest, and prints their
 * errors. Imports statically: the fast path is bundled as one file from here.
 */
export async function runRecall(words: string[], options: RecallOptions): Promise<void> {
  const k = Number(options.k);
  if (!Number.isInteger(k) || k < 1) {
    throw new UserError(`--k must be a positive integer, not "${options.k}"`, {
      code: 'INVALID_ARGUMENT',
      hint: 'pass --k 5',
    });
  }
  // The saved index and the memory store only: not the mind, whose start sweeps the home and
  // reads settings a search never uses.
  const home = existingHome(options);
  const index = openHomeRecall(home);
  // This project's memories and the global ones, as the mind's memoryScope() gives them.
  const project = options.allProjects ? null : projectIdentity(process.cwd(), { home });
  const result = index.recall(words.join(' '), {
    k,
    ...(options.facet ? { facet: options.facet } : {}),
    scope: options.allProjects ? 'all' : project ? { id: project.id, name: project.name } : null,
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
}
