/**
 * `firstlight hook EVENT [--host HOST] [--home DIR]` without commander: hooks run on every tool
 * call, so this parses its three options by hand and imports only its event's bundle
 * (hook-bundles/: the gate for a tool call, the packet for a session start). Anything it does not
 * recognise (`--help`, a typo) returns null and commander takes over.
 *
 * Node's own start-up is most of a hook's time, so this also stays off what Node loads lazily:
 * stdin is read with readFileSync (process.stdin would set up a stream), and emit.ts writes
 * with writeSync for the same reason.
 */
import { fstatSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { emitHookCrash, emitHookOutput, type HookOutput, type HookRunOptions } from '../host/hook/index.js';

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

/**
 * `--home`, else `$FIRSTLIGHT_HOME`, else `~/.firstlight` (as core's resolveHome; inlined to stay
 * light). `$HOME` is what os.homedir() returns when set; node:os loads only when it is not.
 */
async function hookHome(flag: string | undefined): Promise<string> {
  if (flag) return resolve(flag);
  if (process.env.FIRSTLIGHT_HOME) return resolve(process.env.FIRSTLIGHT_HOME);
  const home = process.env.HOME || (await import('node:os')).homedir();
  return join(home, '.firstlight');
}

async function readStdinText(): Promise<string> {
  // A terminal (someone typing the command) has no payload to wait for.
  if (fstatSync(0).isCharacterDevice()) return '';
  try {
    return readFileSync(0, 'utf8');
  } catch {
    // A non-blocking stdin (EAGAIN): read it as a stream.
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
}

/**
 * Each event's bundle (built on its own by scripts/bundle.mjs); an unknown event goes to the
 * capture bundle, whose pipeline refuses it.
 */
type Bundle = { run: (options: HookRunOptions) => Promise<HookOutput> };
const BUNDLES: Record<string, () => Promise<Bundle>> = {
  'pre-tool-use': () => import('./hook-bundles/pre-tool-use.js'),
  'post-tool-use': () => import('./hook-bundles/post-tool-use.js'),
  'post-tool-failure': () => import('./hook-bundles/post-tool-use.js'),
  'session-start': () => import('./hook-bundles/session-start.js'),
};
const bundleFor = (event: string) => (BUNDLES[event] ?? (() => import('./hook-bundles/capture.js')))();

/** Runs the hook and returns its exit code, or null to let commander handle the arguments. */
export async function runHookFast(argv: string[]): Promise<number | null> {
  const args = parseHookArgs(argv);
  if (!args) return null;
  try {
    const [{ run }, stdin] = await Promise.all([bundleFor(args.event), readStdinText()]);
    const output = await run({
      event: args.event,
      ...(args.host ? { host: args.host } : {}),
      home: await hookHome(args.home),
      env: process.env,
      cwd: process.cwd(),
      stdin,
    });
    return emitHookOutput(output);
  } catch (error) {
    return emitHookCrash(args.event, error);
  }
}
