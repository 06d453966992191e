// `prepare`: builds dist/ for `npm ci`, `npm pack` and an install from a clone or folder.
// `npm install -g .` in a fresh clone links the folder without installing its devDependencies,
// so TypeScript is missing there: install the locked dependencies into the folder first
// (scripts off, so this does not recurse), then build. An installed tarball never runs this.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// The outer `npm install -g` passes its global flags down: this install is local to the folder.
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    ([key]) => !/^npm_config_(global|prefix|location|omit|production|only)$/i.test(key),
  ),
);
const run = (args) => {
  const r = spawnSync(npm, args, { cwd: root, env, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

if (!existsSync(new URL('../node_modules/typescript/package.json', import.meta.url))) {
  process.stderr.write(
    'firstlight prepare: TypeScript is not installed here; installing the locked dependencies to build dist/\n',
  );
  run(['ci', '--include=dev', '--ignore-scripts', '--no-audit', '--no-fund']);
}
run(['run', 'build']);
