/**
 * `firstlight --help` and `firstlight --version` answered without building the program: the
 * help is rendered once at build time (scripts/bundle.mjs writes dist/cli/help.txt from the same
 * commands, 80 columns wide) and the version is read from package.json. Anything else, or a
 * missing file (running from src/), returns null and commander answers.
 */
import { readFileSync } from 'node:fs';

/** `flag` is `--help`, `-h`, `--version` or `-V`; `entry` is main.js's URL (dist/cli/main.js). */
export function fastAnswer(flag: string, entry: string): number | null {
  let text: string;
  try {
    if (flag === '--help' || flag === '-h') text = readFileSync(new URL('./help.txt', entry), 'utf8');
    else if (flag === '--version' || flag === '-V')
      text = `${(JSON.parse(readFileSync(new URL('../../package.json', entry), 'utf8')) as { version: string }).version}\n`;
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
