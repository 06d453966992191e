/**
 * What command actions share: the home, printing in the one CLI voice, stdin. Imported by the
 * actions when they run (never while the program is built: it loads core).
 */
import { fstatSync } from 'node:fs';
import {
  type HomeSource,
  requireHome,
  resolveHome,
  UserError as UsageError,
  writeAllSync,
} from '../core/index.js';

/** Options every command takes. */
export interface HomeOption {
  home?: string;
}

/** The home directory for a command: `--home`, `$FIRSTLIGHT_HOME`, `~/.firstlight`. */
export function homeFrom(options: HomeOption): string {
  return resolveHome({ flag: options.home }).dir;
}

/**
 * The home for a command that needs one to exist (every command but `init`): a missing home is
 * an error with the fix, and nothing is created.
 */
export function existingHome(options: HomeOption): string {
  const resolved = resolveHome({ flag: options.home });
  requireHome(resolved.dir, resolved.source);
  return resolved.dir;
}

/** How the home was chosen, for commands that say so. */
export type { HomeSource };

/**
 * Prints a result: with `--json` one object carrying `ok` (true unless the value says otherwise),
 * else the human text.
 */
export function print(json: boolean | undefined, value: object, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(jsonAnswer(value), null, 2)}\n` : `${human()}\n`);
}

/**
 * print() straight to the file descriptor, for a command whose only output this is and that
 * runs on a latency budget (a one-shot recall): no stdout stream to set up.
 */
export function printNow(json: boolean | undefined, value: object, human: () => string): void {
  writeAllSync(1, json ? `${JSON.stringify(jsonAnswer(value), null, 2)}\n` : `${human()}\n`);
}

/** `{"ok": true, …value}`; a value with its own boolean `ok` (doctor's report) keeps it. */
export function jsonAnswer(value: object): Record<string, unknown> {
  const own = (value as { ok?: unknown }).ok;
  return { ok: typeof own === 'boolean' ? own : true, ...value };
}

/** Reads all of stdin as text (for `remember` content and the other text arguments). */
export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Whether stdin is a shell pipe or a redirected file (`printf … | firstlight init`,
 * `< answers.txt`): input a person prepared, safe to read to its end. A terminal, /dev/null or
 * a socket a program left open is not.
 */
export function stdinIsPipeOrFile(): boolean {
  if (process.stdin.isTTY) return false;
  try {
    const stat = fstatSync(0);
    return stat.isFIFO() || stat.isFile();
  } catch {
    return false;
  }
}

/** A positive integer option (`--limit 20`), or the usage error naming it. */
export function positiveInt(flag: string, value: string | number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new UsageError(`${flag} must be a positive integer, not "${value}"`, {
      code: 'INVALID_ARGUMENT',
      hint: `pass ${flag} 20`,
    });
  }
  return n;
}

/** `KEY=VALUE` of a repeatable flag (`--arg`, `--env`), split at the first `=`; else the usage error. */
export function keyValue(pair: string, flag: string, example: string): [string, string] {
  const eq = pair.indexOf('=');
  if (eq <= 0) {
    throw new UsageError(`${flag} "${pair}" is not KEY=VALUE`, {
      code: 'INVALID_ARGUMENT',
      hint: `pass ${flag} ${example}`,
    });
  }
  return [pair.slice(0, eq), pair.slice(eq + 1)];
}
