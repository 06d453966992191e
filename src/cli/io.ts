import { readFileSync } from 'node:fs';
import { packagePath, resolveHome, UserError as UsageError } from '../core/index.js';

/** Options every command takes. */
export interface HomeOption {
  home?: string;
}

/** The home directory for a command: `--home`, `$FIRSTLIGHT_HOME`, `~/.firstlight`. */
export function homeFrom(options: HomeOption): string {
  return resolveHome({ flag: options.home }).dir;
}

/** Prints a result: JSON with `--json`, else the human text. */
export function print(json: boolean | undefined, value: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${human()}\n`);
}

export function packageVersionSync(): string {
  return (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
}

/** Reads all of stdin as text (for `remember` content and hook payloads). */
export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** A positive integer option (`--limit 20`), or the usage error naming it. */
export function positiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new UsageError(`${flag} must be a positive integer, not "${value}"`, {
      code: 'INVALID_ARGUMENT',
      hint: `pass ${flag} 20`,
    });
  }
  return n;
}
