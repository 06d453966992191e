import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * The installed package's root (where `assets/`, `examples/`, `schema/` live), found by walking
 * up from this module: the same code runs from `src/` under vitest and from `dist/` when built.
 */
export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('firstlight: package.json not found above the running module');
    dir = parent;
  }
  cached = dir;
  return dir;
}

/** A path inside the package, e.g. `packagePath('examples', 'home')`. */
export function packagePath(...parts: string[]): string {
  return join(packageRoot(), ...parts);
}
