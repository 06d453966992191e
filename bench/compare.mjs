// bench/compare: this build beside another checkout of firstlight, in one run. Each round runs
// the named benches (default: recall, bootstrap) of both trees, alternating which goes first, so
// load on the machine hits them alike; each tree runs its own bench/<name>.mjs against its own
// dist/. After ROUNDS rounds it prints, per bench, every figure both trees report: the median of
// the rounds for each tree, its spread (min–max across rounds: the run-to-run noise), and a
// verdict — "worse" only when the change is in the worse direction and the two spreads do not
// overlap. Writes bench/results/compare.json. Exits 1 when a figure is worse.
//
//   node bench/compare.mjs /path/to/other/checkout [recall bootstrap …]
//   node bench/compare.mjs --bench-here /path/to/other/checkout repl
//   BENCH_ROUNDS=3 (default 3)
//
// --bench-here runs this checkout's bench/<name>.mjs on both builds (BENCH_TREE names the
// other), for a bench the other checkout cannot run or does not have in this form; only a bench
// that loads the build from lib.mjs's ROOT honours it (its result says `tree`: checked here).
//
// The other checkout must be built (`npm ci && npm run build` there). Not run by `npm run bench`
// (run.mjs skips it): it needs the second tree.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT, writeResult } from './lib.mjs';

const cliArgs = process.argv.slice(2);
const benchHere = cliArgs.includes('--bench-here');
const [otherArg, ...names] = cliArgs.filter((a) => a !== '--bench-here');
if (!otherArg) {
  console.error('usage: node bench/compare.mjs [--bench-here] /path/to/other/checkout [bench …]');
  process.exit(2);
}
const other = resolve(otherArg);
const benches = names.length > 0 ? names : ['recall', 'bootstrap'];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const trees = [
  { tag: 'before', root: other },
  { tag: 'now', root: ROOT },
];
for (const t of trees) {
  // Where the bench script comes from and where its result lands (this checkout's results for
  // --bench-here: the other checkout is only read).
  t.scripts = benchHere ? ROOT : t.root;
  for (const b of benches)
    if (!existsSync(join(t.scripts, 'bench', `${b}.mjs`))) {
      console.error(`${t.scripts} has no bench/${b}.mjs`);
      process.exit(2);
    }
}

/** Every numeric leaf of a result, keyed by its path (`latency.10000.p50_ms`). */
function flatten(value, path = '', out = {}) {
  if (typeof value === 'number' && Number.isFinite(value)) out[path] = value;
  else if (Array.isArray(value))
    value.forEach((v, i) => {
      // Rows that name themselves are keyed by their name, not their position.
      const label = v && typeof v === 'object' ? (v.case ?? v.name ?? v.set ?? v.memories ?? i) : i;
      flatten(v, path ? `${path}.${label}` : String(label), out);
    });
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) flatten(v, path ? `${path}.${k}` : k, out);
  return out;
}

/** Which way is better for a figure, from its name: quality up, time and size down. */
function direction(key) {
  if (/recall|mrr|hit|ndcg|precision|written|indexed|recallable|met/i.test(key)) return 'up';
  if (/ms|time|latency|p50|p95|p99|mean|median|bytes|tokens|chars|size|block|ratio/i.test(key)) return 'down';
  return null;
}

const samples = {}; // bench -> tag -> key -> number[]
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? trees : [...trees].reverse();
  for (const bench of benches) {
    for (const t of order) {
      process.stdout.write(`round ${round + 1}/${ROUNDS}: ${bench} (${t.tag}) … `);
      const file = join(t.scripts, 'bench', 'results', `${bench}.json`);
      rmSync(file, { force: true });
      const started = Date.now();
      const run = spawnSync(process.execPath, ['--expose-gc', join(t.scripts, 'bench', `${bench}.mjs`)], {
        cwd: t.root,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        env: benchHere ? { ...process.env, BENCH_TREE: t.root } : process.env,
      });
      console.log(`${((Date.now() - started) / 1000).toFixed(0)} s, exit ${run.status}`);
      if (!existsSync(file)) {
        console.error(run.stdout.slice(-2000), run.stderr.slice(-2000));
        process.exit(1);
      }
      const measured = JSON.parse(readFileSync(file, 'utf8'));
      if (benchHere && measured.tree !== t.root) {
        console.error(
          `bench/${bench}.mjs does not load the build from BENCH_TREE: --bench-here cannot use it`,
        );
        process.exit(2);
      }
      const figures = flatten(measured);
      samples[bench] ??= {};
      samples[bench][t.tag] ??= {};
      const into = samples[bench][t.tag];
      for (const [k, v] of Object.entries(figures)) {
        into[k] ??= [];
        into[k].push(v);
      }
    }
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round3 = (x) => Number(x.toFixed(3));
const result = { rounds: ROUNDS, other, bench_here: benchHere, benches: {} };
let worse = 0;
for (const bench of benches) {
  const before = samples[bench].before;
  const now = samples[bench].now;
  const rows = [];
  for (const key of Object.keys(now)) {
    if (!before[key] || /^at$|node/.test(key)) continue;
    const dir = direction(key);
    const b = before[key];
    const n = now[key];
    const [bMin, bMax, nMin, nMax] = [Math.min(...b), Math.max(...b), Math.min(...n), Math.max(...n)];
    const apart = nMin > bMax || nMax < bMin;
    const up = median(n) > median(b);
    let verdict = 'same (within noise)';
    if (apart && dir) verdict = (dir === 'up') === up ? 'better' : 'WORSE';
    else if (apart) verdict = up ? 'higher' : 'lower';
    if (verdict === 'WORSE') worse++;
    rows.push({
      figure: key,
      before: round3(median(b)),
      'before spread': `${round3(bMin)}–${round3(bMax)}`,
      now: round3(median(n)),
      'now spread': `${round3(nMin)}–${round3(nMax)}`,
      change:
        median(b) === 0 ? '' : `${(((median(n) - median(b)) / Math.abs(median(b))) * 100).toFixed(1)} %`,
      verdict,
    });
  }
  console.log(`\n${bench}: ${ROUNDS} rounds each, interleaved`);
  console.table(rows);
  result.benches[bench] = rows;
}
result.worse = worse;
writeResult('compare', result);
if (worse > 0) {
  console.log(`${worse} figure(s) worse beyond run-to-run noise`);
  process.exitCode = 1;
}
