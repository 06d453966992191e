import { readFileSync } from 'node:fs';
import { packagePath } from '../core/index.js';

let version: string | undefined;

/** The package version, read once from package.json. */
export function packageVersion(): string {
  version ??= (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
  return version;
}
