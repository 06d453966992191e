// How fast the command line answers: whole processes, wall time, beside bare `node -e 0` (the
// floor: no Node command can start faster), every case interleaved run by run so load on the
// machine hits them alike. Cases: `firstlight --help` and `--version` (answered from files
// before commander loads), `memory --help` (commander and the command declarations), and
// `status`, `memory list` and `recall` on the example home, each run as the installed command
// (package.json's bin, dist/cli/firstlight.cjs). Goal: `--help` <= 1.5x the floor (median of the runs); exits
// 1 when missed. `BENCH_BASELINE=path/to/dist/cli/main.js` also times another build on every case
// (an A/B against an older CLI in the same run).
//
//   node bench/cli-start.mjs            21 runs per case (BENCH_RUNS)
//   node bench/cli-start.mjs --smoke    3 runs: proves the bench runs; no goal is judged
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { BIN, benchHome, fmt, printTable, stats, writeResult } from './lib.mjs';

const smoke = process.argv.includes('--smoke');
const RUNS = smoke ? 3 : Number(process.env.BENCH_RUNS ?? 21);
const GOAL = 1.5;
const baseline = process.env.BENCH_BASELINE;
if (baseline && !existsSync(baseline)) {
  console.error(`BENCH_BASELINE ${baseline} does not exist`);
  process.exit(2);
}

const home = benchHome(0, 'firstlight-bench-cli-');
const env = { ...process.env, FIRSTLIGHT_HOME: home.dir };
delete env.FIRSTLIGHT_LOG;

const cases = [
  { case: 'node -e 0 (floor)', args: ['-e', '0'] },
  ...[
    ['--help'],
    ['--version'],
    ['memory', '--help'],
    ['status'],
    ['memory', 'list'],
    ['recall', 'squash merges'],
  ].flatMap((args) => [
    { case: `firstlight ${args.join(' ')}`, args: [BIN, ...args] },
    ...(baseline ? [{ case: `baseline ${args.join(' ')}`, args: [baseline, ...args] }] : []),
  ]),
];

function time(args) {
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

try {
  const samples = Object.fromEntries(cases.map((c) => [c.case, []]));
  // One warm-up of each (the file cache), then RUNS rounds, each case once per round.
  for (const c of cases) time(c.args);
  for (let round = 0; round < RUNS; round++) for (const c of cases) samples[c.case].push(time(c.args));
  const floor = stats(samples[cases[0].case]).median;
  const rows = cases.map((c) => {
    const s = stats(samples[c.case]);
    return {
      case: c.case,
      runs: s.n,
      median_ms: Number(s.median.toFixed(1)),
      p95_ms: Number(s.p95.toFixed(1)),
      ratio_to_floor: Number((s.median / floor).toFixed(2)),
    };
  });
  printTable(
    `CLI start, ${RUNS} runs per case, interleaved${smoke ? ' (smoke: no goal judged)' : ''}`,
    rows.map((r) => ({
      ...r,
      median_ms: fmt(r.median_ms),
      p95_ms: fmt(r.p95_ms),
      ratio_to_floor: `${r.ratio_to_floor}x`,
    })),
  );
  const help = rows.find((r) => r.case === 'firstlight --help');
  const met = help.ratio_to_floor <= GOAL;
  console.log(
    `\n--help: ${help.median_ms} ms = ${help.ratio_to_floor}x node -e 0 (${floor.toFixed(1)} ms); goal <= ${GOAL}x: ${smoke ? 'not judged (smoke)' : met ? 'met' : 'MISSED'}`,
  );
  writeResult('cli-start', {
    runs: RUNS,
    floor_ms: Number(floor.toFixed(1)),
    goal: { help_ratio_max: GOAL, met },
    rows,
  });
  if (!smoke && !met) process.exitCode = 1;
} finally {
  home.dispose();
}
