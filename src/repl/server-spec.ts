import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { UserError } from '../core/index.js';
import type { ServerSpec } from '../hub/index.js';
import { splitCommandLine } from './names.js';

/** Arguments of `install_capability`. */
export interface InstallInput {
  name: string;
  command: string;
  args?: string[] | undefined;
  env?: Record<string, string> | undefined;
  cwd?: string | undefined;
}

/**
 * The backend server an `install_capability` input names. Relative paths (the program, `cwd`)
 * are taken from `base` and kept absolute, so a saved spec still works after a restart elsewhere.
 */
export function serverSpecFor(input: InstallInput, base: string): ServerSpec {
  let command = input.command.trim();
  let args = input.args;
  // The seed's one-string form: "npx pkg --root /x" with no separate args, or "npx pkg" with
  // args beside it (its state file, section 7.2); a program whose path has a space stays whole.
  if (/\s/.test(command) && (args === undefined || !existsSync(resolve(base, command)))) {
    const words = splitCommandLine(command);
    command = words[0] ?? '';
    args = [...words.slice(1), ...(args ?? [])];
  }
  if (!command) {
    throw new UserError('`command` is empty', {
      code: 'COMMAND_EMPTY',
      hint: 'give the program that starts the MCP server, e.g. "mcp-server-filesystem", and its arguments in `args`',
    });
  }
  // A relative program path means "from here"; saved absolute, it still works after a restart elsewhere.
  if (command.includes('/') && !isAbsolute(command)) command = resolve(base, command);
  const cwd =
    input.cwd === undefined ? undefined : isAbsolute(input.cwd) ? input.cwd : resolve(base, input.cwd);
  return { command, args: args ?? [], env: input.env ?? {}, cwd };
}
