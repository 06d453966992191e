import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The per-project state directory, `<project>/.firstlight/`. */
export const PROJECT_STATE_DIR = '.firstlight';

/** Where a project's firstlight state lives. */
export interface ProjectLocation {
  /** The project root (the directory holding `.firstlight/`, or where it would be created). */
  dir: string;
  /** How it was found: an existing `.firstlight/`, the nearest git root, or the start directory. */
  found: 'marker' | 'git-root' | 'start';
  /** `<dir>/.firstlight/taskspace.json` */
  taskspaceFile: string;
  /** `<dir>/.firstlight/guidance/` */
  guidanceDir: string;
}

/** Paths of a project's state, for a known project root (`--project DIR`). */
export function projectAt(dir: string, found: ProjectLocation['found'] = 'start'): ProjectLocation {
  const root = resolve(dir);
  return {
    dir: root,
    found,
    taskspaceFile: join(root, PROJECT_STATE_DIR, 'taskspace.json'),
    guidanceDir: join(root, PROJECT_STATE_DIR, 'guidance'),
  };
}

/**
 * Finds the project by walking up from `start`: the nearest directory with a `.firstlight/`
 * that is not a firstlight home (the default home is `~/.firstlight`, so a session started
 * anywhere under `~` would otherwise adopt the user's home directory as its project). With no
 * marker, the nearest git root, else `start` itself: that is where a first write creates one.
 */
export function findProject(start: string, options: { home?: string } = {}): ProjectLocation {
  const from = resolve(start);
  const home = options.home ? canonical(options.home) : undefined;
  let gitRoot: string | undefined;
  for (let dir = from; ; dir = dirname(dir)) {
    const marker = join(dir, PROJECT_STATE_DIR);
    if (isDirectory(marker) && canonical(marker) !== home && !looksLikeHome(marker)) {
      return projectAt(dir, 'marker');
    }
    if (!gitRoot && existsSync(join(dir, '.git'))) gitRoot = dir;
    if (dirname(dir) === dir) break;
  }
  return gitRoot ? projectAt(gitRoot, 'git-root') : projectAt(from, 'start');
}

/** A home has a persona, memories or settings; a project's `.firstlight/` has none of those. */
function looksLikeHome(dir: string): boolean {
  return ['persona', 'memory', 'firstlight.yaml'].some((entry) => existsSync(join(dir, entry)));
}

function isDirectory(path: string): boolean {
  // existsSync first: it does not throw, and most levels of a walk have no marker.
  if (!existsSync(path)) return false;
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
