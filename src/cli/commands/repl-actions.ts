/**
 * `repl exec` and `repl capability add|list|remove`: each starts the project's harness (which
 * restores the autosave), does one thing, and shuts it down (which saves it again), so what one
 * command leaves is what the next finds, here and in `repl serve`.
 */
import { createLogger, isFirstlightError, type Logger, UserError } from '../../core/index.js';
import { type InstallResult, StateStore } from '../../repl/index.js';
import { jsonAnswer, keyValue, positiveInt, print, readStdin } from '../io.js';
import { progressLine } from '../progress.js';
import { harnessPlan, startHarness } from '../repl-harness.js';
import { closest, didYouMean } from '../suggest.js';
import { showResult } from '../terminal/index.js';
import type { CapabilityAddOptions, ExecOptions, ReplOptions } from './repl.js';

/** The harness's own log lines: errors only, unless FIRSTLIGHT_LOG asks for more. */
function quietLog(): Logger {
  return createLogger('repl', (process.env.FIRSTLIGHT_LOG as 'warn' | undefined) ?? 'error');
}

/** Runs `work` on a started harness and always shuts it down (saving the autosave). */
async function withHarness<T>(
  options: ReplOptions,
  work: (h: Awaited<ReturnType<typeof startHarness>>) => Promise<T>,
) {
  const harness = await startHarness(options, quietLog());
  // Ctrl-C: the first interrupts the running cell, the second kills one that ignores it; with no
  // cell running (a restore, a server starting) it stops, saving as it goes.
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts++;
    if (interrupts > 1 ? harness.repl.killRunning() : harness.repl.interrupt()) return;
    void harness.repl.shutdown().finally(() => process.exit(130));
  };
  process.on('SIGINT', onInterrupt);
  try {
    return await work(harness);
  } finally {
    process.off('SIGINT', onInterrupt);
    await harness.repl.shutdown();
  }
}

/** `firstlight repl exec CODE|-`: one cell; exit 0 when it succeeds, 1 when it raises. */
export async function replExec(
  code: string | undefined,
  options: ExecOptions & { timeoutGiven: boolean },
): Promise<number> {
  const source = code === '-' || (code === undefined && !process.stdin.isTTY) ? await readStdin() : code;
  if (source === undefined || source.trim() === '') {
    throw new UserError('no code to run', {
      code: 'INVALID_ARGUMENT',
      hint: "pass the code: firstlight repl exec 'print(1)', or pipe it: firstlight repl exec - < script.py",
    });
  }
  const timeoutS = options.timeoutGiven ? positiveInt('--timeout', options.timeout ?? '') : undefined;
  const result = await withHarness(options, async ({ repl }) => {
    // What the restore of the autosave said is for a person watching, not part of the cell's output.
    await repl.state();
    const notices = repl.takeNotices();
    if (process.stderr.isTTY) for (const notice of notices) process.stderr.write(`${notice}\n`);
    return repl.execute(source, { repr: true, ...(timeoutS === undefined ? {} : { timeoutS }) });
  });
  if (options.json) {
    const error = result.success
      ? {}
      : { error: { code: result.error_type ?? 'ERROR', message: result.error_message ?? 'the cell raised' } };
    process.stdout.write(
      `${JSON.stringify({ ...jsonAnswer({ ...result, ok: result.success }), ...error }, null, 2)}\n`,
    );
  } else {
    const shown = showResult(result);
    process.stdout.write(shown.stdout);
    process.stderr.write(shown.stderr);
  }
  return result.success ? 0 : 1;
}

/** `KEY=VALUE` flags as an environment. */
function envFrom(pairs: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const [key, value] = keyValue(pair, '--env', 'MEMORY_FILE_PATH=/tmp/memory.json');
    env[key] = value;
  }
  return env;
}

/** `firstlight repl capability add NAME -- COMMAND ARGS…`: installed, described, saved. */
export async function capabilityAdd(
  name: string,
  words: string[],
  options: CapabilityAddOptions,
): Promise<number> {
  const env = envFrom(options.env ?? []);
  const [command = '', ...args] = words;
  const input = {
    name,
    command,
    // One quoted word is a whole command line ("npx -y pkg"), split by the harness.
    ...(words.length > 1 ? { args } : {}),
    ...(Object.keys(env).length > 0 ? { env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
  };
  const progress = progressLine(process.stderr, { label: `capability ${name}:` });
  let installed: InstallResult;
  let autosave = '';
  try {
    installed = await withHarness(options, async (harness) => {
      autosave = harness.autosave;
      // The autosave's own capabilities come back first; say so while they start.
      progress.update(0, undefined, 'restoring the project autosave');
      await harness.repl.state();
      return harness.repl.installCapability(input, {
        progress: async (p, total, message) => progress.update(p, total, message),
      });
    });
  } finally {
    progress.stop();
  }
  print(options.json, { ...installed, autosave }, () =>
    [
      `firstlight: ${installed.message}`,
      `  saved in ${autosave}: every firstlight repl in this project (and repl serve) starts with it`,
      '',
      installed.description,
    ].join('\n'),
  );
  return 0;
}

/** The project's saved capabilities, read from its autosave (no kernel starts). */
function savedCapabilities(options: ReplOptions) {
  const plan = harnessPlan(options, quietLog());
  const store = new StateStore(plan.home);
  if (!store.exists(plan.autosave)) return { plan, capabilities: {}, natives: [] as string[] };
  const { state } = store.read(plan.autosave);
  return { plan, capabilities: state.capabilities, natives: Object.keys(state.native_capabilities) };
}

/** `firstlight repl capability list`. */
export async function capabilityList(options: ReplOptions & { json?: boolean }): Promise<void> {
  const { plan, capabilities, natives } = savedCapabilities(options);
  const rows = Object.entries(capabilities).map(([name, spec]) => ({
    name,
    command: spec.command,
    args: spec.args ?? [],
    env: Object.keys(spec.env ?? {}),
    cwd: spec.cwd ?? null,
  }));
  print(
    options.json,
    { project: plan.project.dir, autosave: plan.autosave, capabilities: rows, native: natives },
    () => {
      if (rows.length === 0 && natives.length === 0)
        return `no capabilities saved for ${plan.project.dir} yet: firstlight repl capability add NAME -- COMMAND ARGS…`;
      return [
        ...rows.map(
          (r) =>
            `${r.name.padEnd(14)} ${[r.command, ...r.args].join(' ')}${r.env.length ? `  (env: ${r.env.join(', ')})` : ''}${r.cwd ? `  (cwd: ${r.cwd})` : ''}`,
        ),
        ...natives.map((n) => `${n.padEnd(14)} (native: registered in Python with register_capability)`),
      ].join('\n');
    },
  );
}

/** `firstlight repl capability remove NAME`: its server stopped, the autosave saved without it. */
export async function capabilityRemove(
  name: string,
  options: ReplOptions & { json?: boolean },
): Promise<void> {
  const { plan, capabilities, natives } = savedCapabilities(options);
  const known = [...Object.keys(capabilities), ...natives];
  if (!known.includes(name)) {
    const close = didYouMean(closest(name, known));
    throw new UserError(
      `no capability "${name}" is saved for ${plan.project.dir}${close ? ` ${close}` : ''}`,
      {
        code: 'NOT_FOUND',
        hint:
          known.length > 0
            ? `saved: ${known.join(', ')}`
            : 'nothing is saved yet: firstlight repl capability list',
      },
    );
  }
  const removed = await withHarness(options, async ({ repl }) => {
    await repl.state();
    try {
      return await repl.uninstallCapability(name);
    } catch (error) {
      // Saved but not restored (its server would not start): dropping it from the save is the point.
      if (isFirstlightError(error) && error.code === 'NOT_FOUND')
        return { name, message: `Dropped '${name}'` };
      throw error;
    }
  });
  print(options.json, removed, () => `firstlight: ${removed.message}; ${plan.autosave} no longer starts it`);
}
