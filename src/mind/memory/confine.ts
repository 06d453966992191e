import { realpathSync } from 'node:fs';
import { isAbsolute, relative, sep } from 'node:path';

/**
 * Whether `path`, with every symlink resolved, lies inside `root` (also resolved). Reads of
 * memory/ go through this so a symlink cannot expose a file elsewhere on the machine. Throws
 * when either does not exist.
 */
export function resolvesInside(root: string, path: string): boolean {
  const rel = relative(realpathSync(root), realpathSync(path));
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
