/**
 * `firstlight recall WORDS… [--limit N] [--facet KEY:VALUE] [--all-projects] [--source S] [--since T]
 * [--until T] [--home DIR] [--json]` without commander
 * (`--k N`, the older name of --limit, too):
 * a one-shot recall is run by hand and by scripts all day, and commander with every command's
 * registration cost about as much as Node's own start. Parses those options by hand; anything
 * else (`--help`, a typo, a missing value) returns null and commander takes over, as does any
 * error before output (commander's path prints it with its code and hint).
 */
import type { RecallOptions } from './commands/recall.js';
import { runRecall } from './recall-run.js';

const VALUED = new Set(['--limit', '--k', '--facet', '--home', '--source', '--since', '--until']);
const SOURCES = new Set(['memory', 'events', 'all']);

function parseRecallArgs(argv: string[]): { words: string[]; options: RecallOptions } | null {
  const words: string[] = [];
  const options: RecallOptions = { k: '5' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json') options.json = true;
    else if (arg === '--all-projects') options.allProjects = true;
    else if (VALUED.has(arg)) {
      const value = argv[++i];
      if (value === undefined || value.startsWith('-')) return null;
      if (arg === '--limit' || arg === '--k') options.k = value;
      else if (arg === '--facet') options.facet = value;
      else if (arg === '--source') {
        // An unknown source goes to commander, which names the choices.
        if (!SOURCES.has(value)) return null;
        options.source = value;
      } else if (arg === '--since') options.since = value;
      else if (arg === '--until') options.until = value;
      else options.home = value;
    } else if (arg.startsWith('-')) return null;
    else words.push(arg);
  }
  return words.length > 0 ? { words, options } : null;
}

/** Runs the recall and returns its exit code, or null to let commander handle the arguments. */
export async function runRecallFast(argv: string[]): Promise<number | null> {
  const parsed = parseRecallArgs(argv);
  if (!parsed) return null;
  try {
    await runRecall(parsed.words, parsed.options);
    return 0;
  } catch {
    return null;
  }
}
