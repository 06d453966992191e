// Runs every benchmark in bench/ (each bench/<name>.mjs except this file), one after another:
// they measure latency, and running them in parallel on two cores would measure each other.
// `npm run bench` builds first; `npm run bench -- recall` runs only the named ones. compare.mjs
// (this build beside another checkout) is run by hand: it needs the second tree.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
mkdirSync(join(here, 'results'), { recursive: true });
const only = process.argv.slice(2);
const benches = readdirSync(here)
  .filter((f) => f.endsWith('.mjs') && !['run.mjs', 'lib.mjs', 'compare.mjs'].includes(f))
  .filter((f) => only.length === 0 || only.includes(f.replace(/\.mjs$/, '')))
  .sort();
let failed = 0;
for (const file of benches) {
  process.stdout.write(`\n=== bench/${file} ===\n`);
  const result = spawnSync(process.execPath, ['--expose-gc', join(here, file)], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
