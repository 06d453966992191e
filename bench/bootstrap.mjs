// bootstrap_session latency beside the protocol ping on the same stdio connection (the floor),
// at 100 and 10,000 memories, and packet size at 100 vs 100,000 memories.
// Goals: bootstrap ≤ 3× ping at 10k memories; tokens at 100k ≤ 1.05× tokens at 100.
//
// Real sessions each bring their own session_id, so a "new session" call (which records the
// session start in sessions.jsonl) is the case that matters; "repeated" (same id again, e.g. a
// host re-calling after compaction) is timed beside it. Calls are interleaved (ping, repeated,
// new) so machine noise hits all three alike: compare ratios within one run. "First call" is a
// fresh server process per sample: spawn + initialize, then the first bootstrap_session, at
// once and after a second of idle (the server warms its caches once the client initialized).
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { benchHome, CLI, connect, countFrom, fmt, printTable, sized, stats, writeResult } from './lib.mjs';

const N = countFrom('BENCH_N', 300, 5);
const FRESH = countFrom('BENCH_FRESH', 5, 1);
const WARM = sized(20, 2);
const IDLE_MS = sized(1000, 50);
// Memories in the homes timed for latency, and in the homes whose packet size is compared.
const COUNTS = sized([100, 10_000], [50, 300]);
const SIZES = sized([100, 100_000], [50, 500]);
// Idle time after each round: sessions do not start back to back.
const GAP_MS = 10;

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
async function timed(fn) {
  const t0 = process.hrtime.bigint();
  await fn();
  return ms(t0);
}
const boot = (client, sessionId) =>
  client.callTool({ name: 'bootstrap_session', arguments: { session_id: sessionId } });

const latency = [];
const firstCall = [];
for (const count of COUNTS) {
  const home = benchHome(count);
  const args = ['serve', '--home', home.dir];

  // One untimed process builds the persisted memory cache, as the first session on a machine does.
  await (await connect(args)).close();
  const spawnMs = [];
  const firstMs = [];
  const afterIdleMs = [];
  for (let i = 0; i < FRESH; i++) {
    const t0 = process.hrtime.bigint();
    const client = await connect(args);
    spawnMs.push(ms(t0));
    firstMs.push(await timed(() => boot(client, `fresh-${i}`)));
    await client.close();
    // A host's model takes seconds to make its first call; the server warms up meanwhile.
    const idle = await connect(args);
    await sleep(IDLE_MS);
    afterIdleMs.push(await timed(() => boot(idle, `idle-${i}`)));
    await idle.close();
  }
  firstCall.push({
    memories: count,
    spawn_initialize_median_ms: stats(spawnMs).median,
    first_call_median_ms: stats(firstMs).median,
    first_call_max_ms: Math.max(...firstMs),
    first_call_after_idle_median_ms: stats(afterIdleMs).median,
    idle_ms: IDLE_MS,
    samples: FRESH,
  });

  const client = await connect(args);
  for (let i = 0; i < WARM; i++) {
    await client.ping();
    await boot(client, 'repeat');
    await boot(client, `warm-${i}`);
  }
  const ping = [];
  const repeated = [];
  const fresh = [];
  for (let i = 0; i < N; i++) {
    ping.push(await timed(() => client.ping()));
    repeated.push(await timed(() => boot(client, 'repeat')));
    fresh.push(await timed(() => boot(client, `session-${i}`)));
    await sleep(GAP_MS);
  }
  await client.close();
  home.dispose();
  const p = stats(ping);
  const r = stats(repeated);
  const n = stats(fresh);
  latency.push({
    memories: count,
    ping_median_ms: p.median,
    ping_p95_ms: p.p95,
    new_session_median_ms: n.median,
    new_session_p95_ms: n.p95,
    new_session_ratio: n.median / p.median,
    repeated_median_ms: r.median,
    repeated_p95_ms: r.p95,
    repeated_ratio: r.median / p.median,
  });
}
printTable(
  `bootstrap_session vs ping on one stdio connection (interleaved, ${N} rounds)`,
  latency.flatMap((r) => [
    {
      memories: r.memories,
      call: 'ping',
      'median ms': fmt(r.ping_median_ms),
      'p95 ms': fmt(r.ping_p95_ms),
      '× ping': '1',
    },
    {
      memories: r.memories,
      call: 'bootstrap, new session',
      'median ms': fmt(r.new_session_median_ms),
      'p95 ms': fmt(r.new_session_p95_ms),
      '× ping': fmt(r.new_session_ratio),
    },
    {
      memories: r.memories,
      call: 'bootstrap, repeated id',
      'median ms': fmt(r.repeated_median_ms),
      'p95 ms': fmt(r.repeated_p95_ms),
      '× ping': fmt(r.repeated_ratio),
    },
  ]),
);
printTable(
  `first bootstrap_session in a fresh server process (median of ${FRESH}; memory cache present)`,
  firstCall.map((r) => ({
    memories: r.memories,
    'spawn+initialize ms': fmt(r.spawn_initialize_median_ms),
    'first call ms': fmt(r.first_call_median_ms),
    'first call max ms': fmt(r.first_call_max_ms),
    [`first call after ${IDLE_MS} ms idle`]: fmt(r.first_call_after_idle_median_ms),
  })),
);

const size = [];
for (const count of SIZES) {
  const home = benchHome(count);
  const run = () =>
    spawnSync(process.execPath, [CLI, 'packet', '--home', home.dir, '--session-id', 'bench'], {
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
  const t0 = Date.now();
  const out = run();
  const coldMs = Date.now() - t0;
  const t1 = Date.now();
  run();
  const warmMs = Date.now() - t1;
  const packet = JSON.parse(out.stdout);
  home.dispose();
  size.push({
    memories: count,
    chars: packet.budget.chars,
    tokens: packet.budget.tokens_estimate,
    cold_cli_ms: coldMs,
    cached_cli_ms: warmMs,
  });
}
const tokenRatio = size[1].tokens / size[0].tokens;
printTable(
  'packet size (tokens estimate) at 100 vs 100,000 memories',
  size.map((r) => ({
    memories: r.memories,
    chars: r.chars,
    tokens: r.tokens,
    'packet CLI cold ms': r.cold_cli_ms,
    'cached ms': r.cached_cli_ms,
  })),
);

const at10k = latency.find((r) => r.memories === COUNTS[1]);
const goals = [
  { goal: `bootstrap (new session) ≤ 3× ping at ${COUNTS[1]}`, value: at10k.new_session_ratio, max: 3 },
  { goal: `bootstrap (repeated id) ≤ 3× ping at ${COUNTS[1]}`, value: at10k.repeated_ratio, max: 3 },
  { goal: 'packet tokens 100k / 100 ≤ 1.05', value: tokenRatio, max: 1.05 },
].map((g) => ({ ...g, met: g.value <= g.max }));
console.log('');
for (const g of goals) console.log(`${g.met ? 'MET   ' : 'MISSED'}  ${g.goal}: ${g.value.toFixed(3)}`);
writeResult('bootstrap', {
  note: 'shared 2-core machine: absolute times are noisy; compare ratios within one run',
  latency,
  first_call: firstCall,
  size,
  token_ratio: tokenRatio,
  goals,
});
