// Runs every benchmark in bench/ (each bench/<name>.mjs except this file), one after another:
// they measure latency, and running them in parallel on two cores would measure each other.
// `npm run bench` builds first; `npm run bench -- recall` runs only the named ones;
// `npm run bench -- --smoke` runs each in its short mode (seconds each, what CI runs: a bench
// that cannot run fails), two at a time (a smoke run measures nothing, so they may share the
// machine), each one's output printed whole when it ends. A bench fails when it exits non-zero
// or writes no result JSON.
// compare.mjs (this build beside another checkout) is run by hand: it needs the second tree.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const results = join(here, 'results');
mkdirSync(results, { recursive: true });
const args = process.argv.slice(2);
const flags = args.filter((a) => a.startsWith('--'));
const only = args.filter((a) => !a.startsWith('--'));
const smoke = flags.includes('--smoke');
const all = readdirSync(here)
  .filter((f) => f.endsWith('.mjs') && !['run.mjs', 'lib.mjs', 'compare.mjs'].includes(f))
  .map((f) => f.replace(/\.mjs$/, ''))
  .sort();
const unknown = only.filter((name) => !all.includes(name));
if (unknown.length > 0) {
  console.error(`bench/run: no bench named ${unknown.join(', ')}; there are: ${all.join(', ')}`);
  process.exit(2);
}
const benches = all.filter((name) => only.length === 0 || only.includes(name));

/**
 * Runs one bench with the flags and resolves with its exit code: output straight through, or
 * (`held`) collected and printed whole at the end, so two benches at once do not interleave.
 */
const runBench = (name, held) =>
  new Promise((resolve) => {
    const title = `\n=== bench/${name}.mjs${smoke ? ' --smoke' : ''} ===\n`;
    if (!held) process.stdout.write(title);
    const child = spawn(process.execPath, ['--expose-gc', join(here, `${name}.mjs`), ...flags], {
      stdio: held ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
    const output = [Buffer.from(title)];
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    child.on('close', (code, signal) => {
      if (held) process.stdout.write(Buffer.concat(output));
      resolve(code ?? `signal ${signal}`);
    });
  });

/** Runs `name` and checks that it wrote its result; resolves with its summary line. */
async function benchmark(name, held) {
  const result = join(results, smoke ? `${name}.smoke.json` : `${name}.json`);
  rmSync(result, { force: true });
  const t0 = Date.now();
  const code = await runBench(name, held);
  let problem = code === 0 ? '' : `exit ${code}`;
  if (!problem) {
    try {
      JSON.parse(readFileSync(result, 'utf8'));
    } catch (error) {
      problem = existsSync(result) ? `unreadable ${result}: ${error.message}` : `wrote no ${result}`;
    }
  }
  return { name, seconds: (Date.now() - t0) / 1000, problem };
}

const summary = [];
const started = Date.now();
const queue = [...benches];
const lanes = smoke ? 2 : 1;
await Promise.all(
  Array.from({ length: lanes }, async () => {
    for (let name = queue.shift(); name; name = queue.shift()) summary.push(await benchmark(name, lanes > 1));
  }),
);
summary.sort((a, b) => benches.indexOf(a.name) - benches.indexOf(b.name));
console.log(`\nbench/run${smoke ? ' --smoke' : ''}: ${((Date.now() - started) / 1000).toFixed(1)} s in all`);
for (const s of summary)
  console.log(`  ${s.name.padEnd(20)} ${s.seconds.toFixed(1).padStart(6)} s  ${s.problem || 'ok'}`);
process.exit(summary.some((s) => s.problem) ? 1 : 0);
