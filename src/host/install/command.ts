import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { SERVER_NAME } from '../hook/own-tools.js';
import type { HookEvent, HostId } from '../ids.js';
import type { ServerSpec } from '../types.js';

export interface CommandInput {
  /** Absolute path of the running CLI entry (dist/cli/main.js). */
  cliPath: string;
  /** The node binary running it. */
  execPath: string;
  env: NodeJS.ProcessEnv;
  /** `--home DIR` given to install: passed on to the server and hooks so they use the same home. */
  home?: string;
  /** `--with-repl`: also register the REPL harness (`firstlight repl serve`) as its own server. */
  withRepl?: boolean;
}

/** The hook commands' entry, beside the CLI's (dist/cli/). */
export const HOOK_ENTRY = 'hook.cjs';
/** The installed `firstlight` command (package.json's bin), beside the CLI's entry. */
export const BIN_ENTRY = 'firstlight.cjs';

/** The MCP server name of the REPL harness in hosts' configs. */
export const REPL_SERVER_NAME = 'firstlight-repl';

export interface ResolvedCommands {
  server: ServerSpec;
  /** The REPL harness's server, when install registers it beside the mind (`--with-repl`). */
  repl?: ServerSpec;
  hookArgv: (event: HookEvent, host?: HostId) => string[];
  /**
   * The server and hook commands name no path of this machine (`firstlight` by name on PATH,
   * no `--home DIR`): a teammate's clone, another path or another Node runs them as they are.
   * Otherwise hosts with an uncommitted local settings file get the hooks there.
   */
  portable: boolean;
}

/**
 * How hosts should start firstlight: `firstlight …` when that name on PATH is this very CLI (a
 * global install), else the absolute node binary + CLI path, which works from any cwd. Hooks
 * run `firstlight hook EVENT …` by name too (the bin takes the hook's CommonJS fast path: as
 * fast as node + path, bench/hook.mjs measures it), else the node binary on the hook entry
 * beside the CLI (`dist/cli/hook.cjs EVENT …`).
 */
export function resolveCommands(input: CommandInput): ResolvedCommands {
  const byName = onPath('firstlight', input.env, input.cliPath);
  const prefix = byName ? ['firstlight'] : [input.execPath, input.cliPath];
  const homeArgs = input.home ? ['--home', input.home] : [];
  const [command, ...lead] = prefix as [string, ...string[]];
  return {
    server: { name: SERVER_NAME, command, args: [...lead, 'serve', ...homeArgs] },
    ...(input.withRepl
      ? { repl: { name: REPL_SERVER_NAME, command, args: [...lead, 'repl', 'serve', ...homeArgs] } }
      : {}),
    hookArgv: (event, host) => [
      ...(byName ? ['firstlight', 'hook'] : [input.execPath, join(dirname(input.cliPath), HOOK_ENTRY)]),
      event,
      ...(host ? ['--host', host] : []),
      ...homeArgs,
    ],
    portable: byName && homeArgs.length === 0,
  };
}

/** Whether `name` on PATH is this CLI: its bin (beside the entry), or the entry itself. */
function onPath(name: string, env: NodeJS.ProcessEnv, cliPath: string): boolean {
  const targets = new Set<string>();
  for (const path of [join(dirname(cliPath), BIN_ENTRY), cliPath]) {
    try {
      targets.add(realpathSync(path));
    } catch {
      // not built here
    }
  }
  if (targets.size === 0) return false;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (targets.has(realpathSync(candidate))) return true;
    } catch {
      // not here
    }
  }
  return false;
}

/** POSIX shell quoting (hooks run through a shell). */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A command line for sh/bash. */
export function posixCommand(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}

/**
 * A command line for PowerShell: the call operator `&` (a quoted program is otherwise just a
 * string), the program always single-quoted, other words only when needed; `''` escapes a
 * quote and nothing inside single quotes expands (`$`, backticks).
 */
export function powershellCommand(argv: readonly string[]): string {
  const quote = (word: string) => `'${word.replace(/'/g, "''")}'`;
  return `& ${argv.map((word, i) => (i > 0 && /^[A-Za-z0-9_./:\\-]+$/.test(word) ? word : quote(word))).join(' ')}`;
}
