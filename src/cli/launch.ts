/**
 * The `firstlight` command (package.json's bin, dist/cli/firstlight.cjs). CommonJS: Node starts
 * a CommonJS entry without its ES module loader, which costs a one-shot command about as much as
 * the command itself. The commands run by hand and by scripts all day take their fast paths
 * here, each a CommonJS bundle required as it is (`recall`, `hook`), or an answer read from a
 * file (`--help`, `--version`); everything else, and anything a fast path declines, is main.js
 * (an ES module, imported), which parses the arguments again and runs the command.
 */
import type { fastAnswer as FastAnswer } from './fast-answers.js';
import type { runHookFast as RunHookFast } from './hook-entry.js';
import type { runRecallFast as RunRecallFast } from './recall-entry.js';

const argv = process.argv.slice(2);

async function fastPath(): Promise<number | null> {
  if (argv[0] === 'recall') {
    const { runRecallFast } = require('./recall-entry.cjs') as { runRecallFast: typeof RunRecallFast };
    return runRecallFast(argv.slice(1));
  }
  if (argv[0] === 'hook') {
    const { runHookFast } = require('./hook-entry.cjs') as { runHookFast: typeof RunHookFast };
    return runHookFast(argv.slice(1));
  }
  if (argv.length === 1 && ['--help', '-h', '--version', '-V'].includes(argv[0]!)) {
    const { fastAnswer } = require('./fast-answers.cjs') as { fastAnswer: typeof FastAnswer };
    return fastAnswer(argv[0]!, __dirname);
  }
  return null;
}

void fastPath().then(async (code) => {
  if (code === null) await import('./main.js');
  else process.exitCode = code;
});
