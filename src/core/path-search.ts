import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** True for a regular file this process may execute. */
export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The executable `name` resolves to on `env.PATH` (as a shell would find it), or undefined. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  return (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, name))
    .find(isExecutableFile);
}
