import { realpathSync } from 'node:fs';
import { parse, resolve } from 'node:path';
import { requireDir, UserError } from '../core/index.js';
import { findProject } from '../guidance/index.js';

/** The project a command works on, and how it was chosen (printed in the action block). */
export interface ChosenProject {
  dir: string;
  /** `--project`, an existing `.firstlight/`, the nearest git root, or the current directory. */
  found: 'flag' | 'marker' | 'git-root' | 'start';
}

/**
 * The one project-root rule every command uses: `--project`, else found the way the taskspace,
 * the packet and the hooks find it (walking up from the current directory to the nearest
 * `.firstlight/`, else the git root, else here), so every command agrees on one root from any
 * subdirectory.
 */
export function chooseProject(flag: string | undefined, home: string): ChosenProject {
  if (flag) {
    requireDir(flag, '--project');
    return { dir: resolve(flag), found: 'flag' };
  }
  const found = findProject(process.cwd(), { home });
  return { dir: found.dir, found: found.found };
}

export function projectDir(flag: string | undefined, home: string): string {
  return chooseProject(flag, home).dir;
}

/** One line for the action block: which root, and why that one. */
export function describeRoot(project: ChosenProject): string {
  const why = {
    flag: 'given with --project',
    marker: 'the nearest directory up from here with a .firstlight/',
    'git-root': 'the nearest directory up from here with a .git',
    start: 'the current directory: no .git or .firstlight/ above it',
  }[project.found];
  return `Project root: ${project.dir} (${why}; --project DIR to choose another)`;
}

/**
 * A project install into the home directory or a filesystem root would write `~/.mcp.json`,
 * `~/CLAUDE.md` and the like, which every session under it then reads: refused with the fix.
 */
export function refuseBroadRoot(dir: string, userHome: string): void {
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return resolve(path);
    }
  };
  const root = real(dir);
  const what =
    root === real(userHome)
      ? 'your home directory'
      : root === parse(root).root
        ? 'the filesystem root'
        : null;
  if (!what) return;
  throw new UserError(
    `the project root is ${what} (${root}): a project install there reaches every session under it`,
    {
      code: 'INVALID_ARGUMENT',
      hint: 'run install inside a project (or pass --project DIR); for the user-global files, pass --scope user',
    },
  );
}
