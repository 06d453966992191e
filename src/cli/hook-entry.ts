/**
 * `firstlight hook EVENT [--host HOST] [--home DIR]` without commander: hooks run on every tool
 * call, so this parses its three options by hand and imports only the host part's index (light by design; see its doc).
 * Anything it does not recognise (`--help`, a typo) returns null and commander takes over.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

interface HookArgs {
  event: string;
  host?: string;
  home?: string;
}

function parseHookArgs(argv: string[]): HookArgs | null {
  const [event, ...rest] = argv;
  if (!event || event.startsWith('-')) return null;
  const args: HookArgs = { event };
  for (let i = 0; i < rest.length; i += 2) {
    const [flag, value] = [rest[i], rest[i + 1]];
    if (value === undefined || value.startsWith('-')) return null;
    if (flag === '--host') args.host = value;
    else if (flag === '--home') args.home = value;
    else return null;
  }
  return args;
}

/** `--home`, else `$FIRSTLIGHT_HOME`, else `~/.firstlight` (as core's resolveHome; inlined to stay light). */
function hookHome(flag: string | undefined): string {
  if (flag) return resolve(flag);
  if (process.env.FIRSTLIGHT_HOME) return resolve(process.env.FIRSTLIGHT_HOME);
  return join(homedir(), '.firstlight');
}

async function readStdinText(): Promise<string> {
  if (process.stdin.isTTY) return '';
  try {
    return readFileSync(0, 'utf8');
  } catch {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
}

/** Runs the hook and returns its exit code, or null to let commander handle the arguments. */
export async function runHookFast(argv: string[]): Promise<number | null> {
  const args = parseHookArgs(argv);
  if (!args) return null;
  const { runHook, emitHookOutput, emitHookCrash } = await import('../host/hook/index.js');
  try {
    const output = await runHook({
      event: args.event,
      ...(args.host ? { host: args.host } : {}),
      home: hookHome(args.home),
      env: process.env,
      cwd: process.cwd(),
      stdin: await readStdinText(),
    });
    return emitHookOutput(output);
  } catch (error) {
    return emitHookCrash(args.event, error);
  }
}
