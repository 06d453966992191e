import { resolve } from 'node:path';
import { requireDir } from '../core/index.js';
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
