/**
 * The REPL harness as every `firstlight repl` command starts it: the home, the project's
 * settings and autosave, the kernel kind. `repl serve` (the MCP server), the terminal REPL,
 * `repl exec` and `repl capability` share it, so a namespace or a capability saved by one is
 * there for the next in the same project.
 */
import { homePaths, type Logger, loadSettings, UserError } from '../core/index.js';
import { autosaveNameFor, kernelPython, Repl, type ReplSettings } from '../repl/index.js';
import { existingHome } from './io.js';
import { type ChosenProject, chooseProject } from './project.js';

export interface HarnessOptions {
  home?: string;
  kernel?: string;
}

export interface StartedHarness {
  repl: Repl;
  home: string;
  project: ChosenProject;
  settings: ReplSettings;
  /** The project's autosave state name. */
  autosave: string;
}

/** Settings and names for a harness in this project, without starting it. */
export function harnessPlan(options: HarnessOptions, log: Logger) {
  const home = existingHome(options);
  const project = chooseProject(undefined, home);
  const loaded = loadSettings(homePaths(home).settings);
  for (const problem of loaded.problems) log.warn(problem);
  const settings = { ...loaded.settings.repl };
  if (options.kernel !== undefined) {
    if (options.kernel !== 'stdlib' && options.kernel !== 'jupyter') {
      throw new UserError(`--kernel must be stdlib or jupyter, not "${options.kernel}"`, {
        code: 'INVALID_ARGUMENT',
        hint: 'pass --kernel stdlib (built in) or --kernel jupyter (needs ipykernel)',
      });
    }
    settings.kernel = options.kernel;
  }
  return { home, project, settings, autosave: autosaveNameFor(project.dir) };
}

/** Starts the harness (its kernel, and the restore of the project's autosave, queued). */
export async function startHarness(options: HarnessOptions, log: Logger): Promise<StartedHarness> {
  const plan = harnessPlan(options, log);
  const repl = await Repl.start({
    home: plan.home,
    log,
    settings: plan.settings,
    python: kernelPython(plan.settings.python, plan.settings.kernel),
    cwd: process.cwd(),
    env: process.env,
    autosave: plan.autosave,
  });
  return { repl, ...plan };
}
