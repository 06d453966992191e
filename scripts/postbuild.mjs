// Makes the CLI entries executable after the build (tsc and esbuild do not set modes):
// dist/cli/firstlight.cjs is package.json's bin; dist/cli/main.js runs directly too.
import { chmodSync, existsSync } from 'node:fs';

for (const name of ['main.js', 'firstlight.cjs']) {
  const entry = new URL(`../dist/cli/${name}`, import.meta.url);
  if (existsSync(entry)) chmodSync(entry, 0o755);
}
