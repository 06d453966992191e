/**
 * `firstlight --help` and `firstlight --version` answered without building the program: the
 * help is rendered once at build time (scripts/bundle.mjs writes dist/cli/help.txt from the same
 * commands, 80 columns wide) and the version is read from package.json. Anything else, or a
 * missing file (running from src/), returns null and commander answers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** `flag` is `--help`, `-h`, `--version` or `-V`; `dir` is the CLI's directory (dist/cli/). */
export function fastAnswer(flag: string, dir: string): number | null {
  let text: string;
  try {
    if (flag === '--help' || flag === '-h') text = readFileSync(join(dir, 'help.txt'), 'utf8');
    else if (flag === '--version' || flag === '-V')
      text = `${(JSON.parse(readFileSync(join(dir, '..', '..', 'package.json'), 'utf8')) as { version: string }).version}\n`;
    else return null;
  } catch {
    return null;
  }
  // `firstlight --help | head` may close the pipe first: stop quietly.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  process.stdout.write(text);
  return 0;
}
