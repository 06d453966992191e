/**
 * @module One host's two-session run: install firstlight into a fresh sandbox, record its hook
 * inputs, perform the trust steps, run session one (the scripted scenario) and session two
 * against one scripted model server, and keep the artifacts (and, when asked, the fixtures).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run as runProcess } from '../helpers/index.js';
import { CLAUDE_PINNED, ensureHost, PINNED_HOSTS } from './cache.js';
import { writeRealFixtures } from './fixtures.js';
import { type RecordedRequest, startModelServer } from './model-server.js';
import type { HostRecipe } from './recipes.js';
import type { ResultTable } from './results.js';
import {
  CAPTURE_HOOK,
  createSandbox,
  firstlight,
  keep,
  recordHookInputs,
  runHost,
  type Sandbox,
  writeJson,
} from './sandbox.js';
import { sessionOneModel } from './scenario.js';

export interface RunOptions {
  /** Where artifacts go: `<resultsDir>/<host>/`. */
  resultsDir: string;
  /** Per session; the host's process group is killed past it. */
  timeoutMs: number;
  /** Keep the sandbox (its path is in run.json). */
  keepSandbox: boolean;
  /** Refresh test/fixtures/transcripts/real/<host>/ from this run. */
  writeFixtures: boolean;
}

const PROMPT = 'Start the session.';

/** The host's own version line, or "unknown". */
export async function versionOf(bin: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const ran = await runProcess(bin, args, { env, timeoutMs: 30_000 });
  if (ran.status !== 0) return 'unknown';
  return ran.stdout.trim().split('\n')[0] ?? '';
}

export interface SessionsRun {
  skipped: string | null;
  /** Why the run could not get to the host (firstlight init or install failed), else null. */
  failed: string | null;
  one: RecordedRequest[];
  two: RecordedRequest[];
  lastWords: string;
  /** The text of the feedback memory whose applies_to matches the allowed shell call. */
  caution: string;
  /** The `source: hook` events session one left in the firstlight home's event store. */
  hookEvents: Record<string, unknown>[];
}

/** The firstlight home's events with `source: hook`, oldest first. */
function hookEventsOf(home: string): Record<string, unknown>[] {
  const dir = join(home, 'events');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((e) => e.source === 'hook');
}

/** Runs both sessions of one host; records the host in `table`; never throws for a missing host. */
export async function runSessions(
  recipe: HostRecipe,
  table: ResultTable,
  options: RunOptions,
): Promise<SessionsRun> {
  const pinned = PINNED_HOSTS[recipe.id];
  const lastWords = `Last words of session one: the ${recipe.id} kettle is on (${Date.now().toString(36)}).`;
  const caution = `Kettle caution ${Date.now().toString(36)}: the after-printf wakes the house; keep it quiet.`;
  const run: SessionsRun = {
    skipped: null,
    failed: null,
    one: [],
    two: [],
    lastWords,
    caution,
    hookEvents: [],
  };
  const record = { host: recipe.id, name: recipe.name, pkg: pinned.pkg, version: pinned.version };
  const ensured = await ensureHost(recipe.id);
  if (!ensured.ok) {
    run.skipped = ensured.reason;
    console.warn(`[test:hosts] skipping ${recipe.name}: ${ensured.reason}`);
    table.host({
      ...record,
      reported: null,
      installMs: ensured.installMs,
      sessionMs: [],
      skipped: ensured.reason,
    });
    return run;
  }
  const sandbox = await createSandbox(recipe.id);
  let phase: 1 | 2 = 1;
  const sessionOne = sessionOneModel(recipe, lastWords);
  await using model = await startModelServer({
    fallback: (request) => (phase === 1 ? sessionOne(request) : { text: 'Back again.' }),
  });
  try {
    const install = await firstlight(sandbox, [
      'install',
      recipe.id,
      '--project',
      sandbox.project,
      '--home',
      sandbox.firstlightHome,
    ]);
    if (install.status !== 0) {
      run.failed = `firstlight install ${recipe.id} failed (exit ${install.status}): ${install.stderr.trim().slice(0, 300)}`;
      table.host({ ...record, reported: null, installMs: ensured.installMs, sessionMs: [], skipped: null });
      return run;
    }
    if (recipe.userInstall) {
      const user = await firstlight(sandbox, [
        'install',
        recipe.id,
        '--scope',
        'user',
        '--home',
        sandbox.firstlightHome,
      ]);
      if (user.status !== 0) {
        run.failed = `firstlight install ${recipe.id} --scope user failed (exit ${user.status}): ${user.stderr.trim().slice(0, 300)}`;
        table.host({ ...record, reported: null, installMs: ensured.installMs, sessionMs: [], skipped: null });
        return run;
      }
    }
    // A feedback memory whose applies_to matches only the second shell call (its argument).
    const remembered = await firstlight(
      sandbox,
      [
        'remember',
        '--home',
        sandbox.firstlightHome,
        '--type',
        'feedback',
        '--name',
        'Kettle caution',
        '--applies-to',
        '*(*ran-%s*after*)',
      ],
      caution,
    );
    if (remembered.status !== 0) {
      run.failed = `firstlight remember failed (exit ${remembered.status}): ${remembered.stderr.trim().slice(0, 300)}`;
      table.host({ ...record, reported: null, installMs: ensured.installMs, sessionMs: [], skipped: null });
      return run;
    }
    recordHookInputs(sandbox, recipe.hookFiles);
    const env = { ...sandbox.env, ...recipe.configure(sandbox, model.url) };
    const session = { cwd: sandbox.project, env, timeoutMs: options.timeoutMs };
    const first = await runHost(ensured.bin, recipe.sessionArgs(PROMPT), session);
    run.one = [...model.turns];
    run.hookEvents = hookEventsOf(sandbox.firstlightHome);
    phase = 2;
    const second = await runHost(ensured.bin, recipe.sessionArgs(PROMPT), session);
    run.two = model.turns.slice(run.one.length);
    table.host({
      ...record,
      reported: await versionOf(ensured.bin, recipe.versionArgs, env),
      installMs: ensured.installMs,
      sessionMs: [first.ms, second.ms],
      skipped: null,
    });
    keepArtifacts(options.resultsDir, recipe, sandbox, {
      first,
      second,
      turns: model.turns,
      side: model.side,
    });
    if (options.writeFixtures) {
      writeRealFixtures({
        host: fixtureDir(recipe),
        sandbox,
        captureHook: CAPTURE_HOOK,
        transcriptDirs: recipe.transcriptDirs,
        ...(recipe.transcriptName ? { transcriptName: recipe.transcriptName } : {}),
        readme: fixtureReadme(recipe, await versionOf(ensured.bin, recipe.versionArgs, env)),
      });
    }
  } finally {
    if (!options.keepSandbox) sandbox.dispose();
  }
  return run;
}

/** Claude Code at a version other than the pinned one (FIRSTLIGHT_CLAUDE_VERSION) keeps its own fixtures. */
function fixtureDir(recipe: HostRecipe): string {
  return recipe.id === 'claude' && PINNED_HOSTS.claude.version !== CLAUDE_PINNED
    ? 'claude-newest'
    : recipe.id;
}

function fixtureReadme(recipe: HostRecipe, reported: string): string {
  const pinned = PINNED_HOSTS[recipe.id];
  return [
    `# ${recipe.name}: files a real run wrote`,
    '',
    `Written by ${pinned.pkg}@${pinned.version} (\`${reported}\`) on ${new Date().toISOString().slice(0, 10)},`,
    'in a `npm run test:hosts` run with `FIRSTLIGHT_HOSTS_FIXTURES=1` (test/hosts/hosts.test.ts), against',
    'the scripted model. Paths are scrubbed: the sandbox HOME is /home/user, the project',
    "/home/user/project, the firstlight home /home/user/.firstlight; ids are the run's own.",
    '',
    `- \`session-1.*\`: the model calls ${recipe.shellTools[0]} (denied by the gate), then`,
    `  ${recipe.bootstrapName} (succeeds), then ${recipe.shellTools[0]} again (allowed), then says its last words.`,
    '- `session-2.*`: the next session, whose SessionStart carries those last words.',
    '- `hook-inputs/NNN-<event>.json`: each hook call in order: `argv`, the exact `stdin` the host',
    "  sent, and firstlight's `stdout`, `stderr` and exit `status`.",
    '',
  ].join('\n');
}

function keepArtifacts(results: string, recipe: HostRecipe, sandbox: Sandbox, runs: Record<string, unknown>) {
  const dir = join(results, recipe.id);
  writeJson(join(dir, 'run.json'), { sandbox: sandbox.root, ...runs });
  keep(sandbox.hookInputs, join(dir, 'hook-inputs'));
  for (const t of recipe.transcriptDirs) keep(join(sandbox.home, t), join(dir, 'transcripts', t));
}
