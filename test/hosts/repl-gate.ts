/**
 * @module The REPL gate on a real host: after `firstlight install HOST --with-repl`, the scripted
 * model calls the REPL's `execute` with Python that writes a file, then bootstrap_session, then
 * `execute` again with Python that writes another. The first must be denied (its file never
 * appears), the second must run (its file appears). The host's own PreToolUse payloads for the
 * REPL call are kept, and with `FIRSTLIGHT_HOSTS_FIXTURES=1` written to
 * test/fixtures/hosts/<host>/pre-tool-use-repl-execute.json (scrubbed), for the hook tests that
 * replay them without the host.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/index.js';
import { ensureHost } from './cache.js';
import { scrubber } from './fixtures.js';
import {
  type RecordedRequest,
  type SentToolResult,
  startModelServer,
  type ToolCall,
  toolNames,
  toolResults,
} from './model-server.js';
import type { HostRecipe } from './recipes.js';
import { CAPTURE_HOOK, createSandbox, firstlight, recordHookInputs, runHost } from './sandbox.js';

/** Python that leaves a file behind when it runs. */
const writes = (path: string, text: string) =>
  `open(${JSON.stringify(path)}, "w").write(${JSON.stringify(text)})\nprint("wrote", ${JSON.stringify(text)})`;

/** The files the two `execute` calls write: `before` must never appear, `after` must. */
export interface ReplGateRun {
  skipped: string | null;
  failed: string | null;
  /** The REPL tool's name as the host offered it to the model (`ns__name` for a Codex namespace). */
  offered: string | null;
  /** What the host sent back for each REPL call, in order. */
  replResults: SentToolResult[];
  beforeFileExists: boolean;
  afterFileExists: boolean;
  /** The host's PreToolUse stdin for each REPL call, as recorded. */
  payloads: Record<string, unknown>[];
  /** firstlight's answer to each of them (stdout, exit status). */
  answers: { stdout: string; status: number | null }[];
  /** The session's final stdout and stderr, for a failure's detail. */
  output: string;
}

/** The REPL `execute` tool among those a request offers: any host's spelling of our REPL server. */
function replExecuteOf(request: RecordedRequest): string | null {
  return toolNames(request).find((n) => REPL_EXECUTE.test(n)) ?? null;
}

/**
 * The call as the host expects it: Codex offers each MCP server as one namespace tool
 * (`mcp__firstlight-repl`) holding plain names, listed as `namespace__name` beside the namespace.
 */
function callFor(seen: Offered, code: string): ToolCall {
  const cut = seen.offered!.lastIndexOf('__');
  const ns = cut > 0 ? seen.offered!.slice(0, cut) : '';
  return seen.names.includes(ns)
    ? { name: seen.offered!.slice(cut + 2), namespace: ns, input: { code } }
    : { name: seen.offered!, input: { code } };
}

interface Offered {
  offered: string | null;
  names: string[];
}

/** Any host's spelling of the REPL's execute tool (`ns__name` for a Codex namespace). */
const REPL_EXECUTE = /firstlight[-_]repl.*execute$/i;

/** Results of calls to the REPL's execute tool. */
const replResultsOf = (results: SentToolResult[]) =>
  results.filter((r) => r.name !== null && REPL_EXECUTE.test(r.name));

const unsupported = (r: SentToolResult | undefined) => r !== undefined && /unsupported call/i.test(r.text);

/**
 * One session: REPL execute (gated), bootstrap_session, REPL execute (allowed), done. Each move
 * is read from the results so far. Codex starts MCP servers beside the first turn, so a tool not
 * offered yet is waited for with a shell call (gated too, harmless), and a call that came back
 * "unsupported call" is tried again (at most three times).
 */
function model(recipe: HostRecipe, files: { before: string; after: string }, seen: Offered) {
  return (request: RecordedRequest) => {
    if (!seen.offered) {
      seen.offered = replExecuteOf(request);
      seen.names = toolNames(request);
    }
    const results = toolResults(request);
    const repl: { before: SentToolResult[]; after: SentToolResult[] } = { before: [], after: [] };
    const boots: SentToolResult[] = [];
    let booted = false;
    let shells = 0;
    for (const r of results) {
      if (r.name === recipe.bootstrapName) {
        boots.push(r);
        booted ||= /mind_contract_available\\*"\s*:\s*true/.test(r.text);
      } else if (r.name !== null && REPL_EXECUTE.test(r.name)) (booted ? repl.after : repl.before).push(r);
      else if (r.name !== null && recipe.shellTools.includes(r.name)) shells++;
    }
    const again = (list: SentToolResult[]) =>
      list.length === 0 || (unsupported(list.at(-1)) && list.length < 3);
    if (!seen.offered) {
      if (shells >= 3) return { text: 'The REPL was never offered.' };
      const tool = recipe.shellTools.find((t) => toolNames(request).includes(t)) ?? recipe.shellTools[0]!;
      return { toolCalls: [{ name: tool, input: recipe.shellInput(tool, 'true') }] };
    }
    if (!booted && again(repl.before))
      return { text: 'Running Python first.', toolCalls: [callFor(seen, writes(files.before, 'before'))] };
    if (!booted)
      return again(boots) ? { toolCalls: [recipe.bootstrapCall(request)] } : { text: 'No bootstrap.' };
    if (again(repl.after)) return { toolCalls: [callFor(seen, writes(files.after, 'after'))] };
    return { text: 'Both calls are done.' };
  };
}

/** The recorded PreToolUse calls for the REPL's execute tool, oldest first. */
function replHookCalls(
  dir: string,
): { stdin: Record<string, unknown>; stdout: string; status: number | null }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.includes('-pre-tool-use-'))
    .sort()
    .map(
      (f) =>
        JSON.parse(readFileSync(join(dir, f), 'utf8')) as {
          stdin: string;
          stdout: string;
          status: number | null;
        },
    )
    .map((r) => ({
      stdin: JSON.parse(r.stdin) as Record<string, unknown>,
      stdout: r.stdout,
      status: r.status,
    }))
    .filter((r) => JSON.stringify(r.stdin.tool_name ?? r.stdin.toolName ?? '').match(/repl/i));
}

export async function runReplGate(
  recipe: HostRecipe,
  options: { timeoutMs: number; keepSandbox: boolean; writeFixtures: boolean },
): Promise<ReplGateRun> {
  const run: ReplGateRun = {
    skipped: null,
    failed: null,
    offered: null,
    replResults: [],
    beforeFileExists: false,
    afterFileExists: false,
    payloads: [],
    answers: [],
    output: '',
  };
  const ensured = await ensureHost(recipe.id);
  if (!ensured.ok) {
    run.skipped = ensured.reason;
    return run;
  }
  const sandbox = await createSandbox(`${recipe.id}-repl`);
  const files = {
    before: join(sandbox.project, 'repl-before.txt'),
    after: join(sandbox.project, 'repl-after.txt'),
  };
  const seen: Offered = { offered: null, names: [] };
  await using server = await startModelServer({ fallback: model(recipe, files, seen) });
  try {
    const install = await firstlight(sandbox, [
      'install',
      recipe.id,
      '--with-repl',
      '--project',
      sandbox.project,
      '--home',
      sandbox.firstlightHome,
    ]);
    if (install.status !== 0) {
      run.failed = `firstlight install ${recipe.id} --with-repl failed (exit ${install.status}): ${install.stderr.trim().slice(0, 300)}`;
      return run;
    }
    if (recipe.userInstall) {
      const user = await firstlight(sandbox, [
        'install',
        recipe.id,
        '--with-repl',
        '--scope',
        'user',
        '--home',
        sandbox.firstlightHome,
      ]);
      if (user.status !== 0) {
        run.failed = `firstlight install ${recipe.id} --with-repl --scope user failed (exit ${user.status}): ${user.stderr.trim().slice(0, 300)}`;
        return run;
      }
    }
    recordHookInputs(sandbox, recipe.hookFiles);
    const env = { ...sandbox.env, ...recipe.configure(sandbox, server.url) };
    // Claude Code's -p mode refuses a tool the user has not allowed: the user allows the REPL
    // (as they allow their shell), so only the gate stands between it and an unbootstrapped session.
    const args = recipe.sessionArgs('Start the session.', ['mcp__firstlight-repl__execute']);
    const session = await runHost(ensured.bin, args, {
      cwd: sandbox.project,
      env,
      timeoutMs: options.timeoutMs,
    });
    run.output = `${session.stdout.slice(-1500)}\n${session.stderr.slice(-1500)}`;
    run.offered = seen.offered;
    const last = server.turns.at(-1);
    run.replResults = last ? replResultsOf(toolResults(last)) : [];
    run.beforeFileExists = existsSync(files.before);
    run.afterFileExists = existsSync(files.after);
    const calls = replHookCalls(sandbox.hookInputs);
    run.payloads = calls.map((c) => c.stdin);
    run.answers = calls.map((c) => ({ stdout: c.stdout, status: c.status }));
    if (options.writeFixtures && calls[0]) {
      const scrub = scrubber(sandbox, CAPTURE_HOOK);
      const to = join(REPO_ROOT, 'test', 'fixtures', 'hosts', recipe.id, 'pre-tool-use-repl-execute.json');
      writeFileSync(to, `${scrub(JSON.stringify(calls[0].stdin, null, 2))}\n`);
    }
  } finally {
    if (!options.keepSandbox) sandbox.dispose();
  }
  return run;
}
