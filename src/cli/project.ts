import { resolve } from 'node:path';
import { requireDir } from '../core/index.js';
import { findProject } from '../guidance/index.js';

/**
 * The project install, uninstall and doctor work on: `--project`, else found the way the
 * taskspace finds it (walking up from the current directory to the nearest `.firstlight/`,
 * else the git root, else here), so every command agrees on one root from any subdirectory.
 */
export function projectDir(flag: string | undefined, home: string): string {
  if (flag) requireDir(flag, '--project');
  return flag ? resolve(flag) : findProject(process.cwd(), { home }).dir;
}
