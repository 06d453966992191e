// What the redactor adds to the line an event writer builds (the PostToolUse hook, on every tool
// call): JSON.stringify of a typical event (the floor: the line is built anyway) beside the same
// with every string field through the redactor, interleaved in one run. Events: a shell call
// with a 3 KB listing (no rule's keyword in it: the common case), a 4 KB source file read (many
// keywords: `key`, `token`, `=`), and a call whose output holds three secrets. Goal: the added
// median cost per event <= 100 µs (a hook's process start is ~50,000 µs). `--smoke` (or BENCH_SMOKE=1) runs a
// few hundred rounds (CI's check that the bench still runs). Exits 1 on a missed goal.
import { Redactor } from '../dist/core/redact/index.js';
import { printTable, SMOKE, stats, writeResult } from './lib.mjs';

const ROUNDS = Number(process.env.BENCH_RUNS ?? (SMOKE ? 300 : 20_000));
const GOAL_US = 100;

const listing = Array.from(
  { length: 60 },
  (_, i) =>
    `-rw-r--r--  1 ana  staff  ${1000 + i * 37}  Nov 27 10:${String(i % 60).padStart(2, '0')} file-${i}.ts`,
).join('\n');
const source = Array.from(
  { length: 90 },
  (_, i) =>
    `  const key${i} = options.token ?? process.env.API_KEY_${i}; // auth header for request ${i}, see config.secret`,
).join('\n');
const secrets = `${listing.slice(0, 1500)}\nexport GITHUB_TOKEN=ghp_${'aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5'}\npassword=hunter2\nAKIA${'ABCDEFGHIJKLMNOP'}\n`;

const event = (tool, args, result) => ({
  id: 'ev_mabc123_0a1b2c3d',
  ts: '2026-11-27T10:00:00.000Z',
  kind: 'observe',
  source: 'hook',
  host: 'claude',
  session: '0b6c3c8e-5a2f-4f6e-9d1c-2a7b8c9d0e1f',
  tool_name: tool,
  tool_use_id: 'toolu_01ABCDEF',
  args: JSON.stringify(args),
  args_hash: '9f86d081884c7d65',
  result,
  outcome: 'ok',
  duration_ms: 42,
});

const cases = [
  { name: 'shell, 3 KB listing', event: event('Bash', { command: 'ls -la src' }, listing) },
  { name: 'read, 4 KB source', event: event('Read', { file_path: 'src/client.ts' }, source.slice(0, 4000)) },
  { name: 'output with 3 secrets', event: event('Bash', { command: 'cat .env' }, secrets) },
];

const redactor = new Redactor();
const redacted = (e) => JSON.stringify(e, (_k, v) => (typeof v === 'string' ? redactor.redact(v, {}) : v));
for (const c of cases) {
  if (redacted(c.event) === JSON.stringify(c.event) && c.name.includes('secrets'))
    throw new Error('the secrets case redacted nothing');
}

const times = new Map(cases.map((c) => [c.name, { floor: [], redact: [] }]));
for (let round = 0; round < ROUNDS; round++) {
  for (const c of cases) {
    const t = times.get(c.name);
    let t0 = process.hrtime.bigint();
    JSON.stringify(c.event);
    t.floor.push(Number(process.hrtime.bigint() - t0) / 1e3);
    t0 = process.hrtime.bigint();
    redacted(c.event);
    t.redact.push(Number(process.hrtime.bigint() - t0) / 1e3);
  }
}

let failed = false;
const rows = cases.map((c) => {
  const t = times.get(c.name);
  const floor = stats(t.floor);
  const red = stats(t.redact);
  const added = red.median - floor.median;
  const ok = SMOKE || added <= GOAL_US;
  if (!ok) failed = true;
  return {
    event: c.name,
    bytes: JSON.stringify(c.event).length,
    'floor µs (stringify)': floor.median.toFixed(1),
    'redacted µs': red.median.toFixed(1),
    'added µs': added.toFixed(1),
    'p95 redacted µs': red.p95.toFixed(1),
    [`goal <= ${GOAL_US}`]: SMOKE ? 'smoke' : ok ? 'ok' : 'MISSED',
  };
});
printTable(`redactor cost per event line (median of ${ROUNDS} rounds, interleaved)`, rows);
writeResult('redact', { rounds: ROUNDS, smoke: SMOKE, goal_added_us: GOAL_US, rows });
process.exit(failed ? 1 : 0);
