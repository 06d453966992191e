import { homePaths, UserError } from '../core/index.js';
import { projectIdentity } from '../guidance/index.js';
import {
  parseTimeBound,
  type RecallHit,
  type RecallResult,
  type RecallSourceName,
  trustedRecall,
} from '../mind/index.js';
import type { RecallOptions } from './commands/recall.js';
import { existingHome, printNow } from './io.js';

/**
 * `firstlight recall`: main.ts runs well-formed calls here before commander loads (see
 * recall-entry.ts); the command's action (commands/recall.ts) runs the rest, and prints their
 * errors. The trusted path is imported statically (the fast path is bundled as one file from
 * here); the long way is a lazy bundle of its own.
 */
export async function runRecall(words: string[], options: RecallOptions): Promise<void> {
  const k = Number(options.k);
  if (!Number.isInteger(k) || k < 1) {
    throw new UserError(`--k must be a positive integer, not "${options.k}"`, {
      code: 'INVALID_ARGUMENT',
      hint: 'pass --k 5',
    });
  }
  const home = existingHome(options);
  // This project's memories and the global ones, as the mind's memoryScope() gives them.
  const project = options.allProjects ? null : projectIdentity(process.cwd(), { home });
  const query = words.join(' ');
  const now = new Date();
  const source = (options.source ?? 'memory') as RecallSourceName;
  const recallOptions = {
    k,
    ...(options.facet ? { facet: options.facet } : {}),
    scope: options.allProjects ? ('all' as const) : project ? { id: project.id, name: project.name } : null,
    ...(options.since ? { since: parseTimeBound(options.since, now, '--since') } : {}),
    ...(options.until ? { until: parseTimeBound(options.until, now, '--until') } : {}),
    ...(source !== 'memory' ? { source } : {}),
  };
  // The saved index alone while its stamp vouches for it (memories only); otherwise the memory
  // store and the index brought up to date (not the mind, whose start sweeps the home and reads
  // settings a search never uses), loaded only then.
  let result: RecallResult | undefined =
    source === 'memory' ? trustedRecall(homePaths(home), query, recallOptions) : undefined;
  let index: { close(): void } | undefined;
  if (!result) {
    const { openHomeRecall } = await import('../mind/index.js');
    const opened = openHomeRecall(home);
    index = opened;
    result = opened.recall(query, recallOptions);
  }
  const found = result;
  printNow(options.json, found, () => {
    const lines = found.results.map((r, i) => `${i + 1}. ${r.name} (${details(r)})\n   ${r.excerpt}`);
    if (lines.length === 0)
      lines.push(
        `no ${source === 'memory' ? 'memory' : source === 'events' ? 'event' : 'memory or event'} matches "${found.query}"`,
      );
    if (found.skipped.length > 0) {
      lines.push(
        `skipped ${found.skipped.length} malformed file(s): ${found.skipped.map((s) => `${s.file} (${s.problem})`).join('; ')}`,
      );
    }
    return lines.join('\n');
  });
  // After printing, so saving the index (a first build, another process's change) never
  // delays the answer: close() saves it and stamps it.
  index?.close();
}

/** What a result line says in parentheses: a memory's type, project and file; an event's session, host and time too. */
function details(r: RecallHit): string {
  if (r.source !== 'events')
    return `${r.type}${r.project ? `, project ${r.project}` : ''}, score ${r.score}, memory/${r.file}`;
  const where = [r.host ? `host ${r.host}` : 'agent', r.session ? `session ${r.session}` : undefined]
    .filter(Boolean)
    .join(', ');
  return `${r.type}, ${r.time}, ${where}, score ${r.score}, ${r.file}`;
}
