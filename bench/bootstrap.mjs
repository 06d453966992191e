// bootstrap_session latency beside the protocol ping on the same stdio connection (the floor),
// at 100 and 10,000 memories; and packet size at 100 vs 100,000 memories.
// Goals (issue 2): bootstrap ≤ 3× ping at 10k memories; tokens at 100k ≤ 1.05× tokens at 100.
import { spawnSync } from 'node:child_process';
import { benchHome, CLI, connect, fmt, printTable, stats, timeCalls, writeResult } from './lib.mjs';

const N = Number(process.env.BENCH_N ?? 300);
const latency = [];
for (const count of [100, 10_000]) {
  const home = benchHome(count);
  const client = await connect(['serve', '--home', home.dir]);
  const ping = stats(await timeCalls(() => client.ping(), N));
  const boot = stats(
    await timeCalls(
      () => client.callTool({ name: 'bootstrap_session', arguments: { session_id: 'bench' } }),
      N,
    ),
  );
  await client.close();
  home.dispose();
  latency.push({
    memories: count,
    ping_median_ms: ping.median,
    bootstrap_median_ms: boot.median,
    bootstrap_p95_ms: boot.p95,
    ratio: boot.median / ping.median,
  });
}
printTable(
  'bootstrap_session vs ping (same connection, median of ' + N + ')',
  latency.map((r) => ({
    memories: r.memories,
    'ping ms': fmt(r.ping_median_ms),
    'bootstrap ms': fmt(r.bootstrap_median_ms),
    'p95 ms': fmt(r.bootstrap_p95_ms),
    '× ping': fmt(r.ratio),
    goal: '≤ 3×',
  })),
);

const size = [];
for (const count of [100, 100_000]) {
  const home = benchHome(count);
  const t0 = Date.now();
  const out = spawnSync(process.execPath, [CLI, 'packet', '--home', home.dir, '--session-id', 'bench'], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const coldMs = Date.now() - t0;
  const t1 = Date.now();
  spawnSync(process.execPath, [CLI, 'packet', '--home', home.dir, '--session-id', 'bench'], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
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
console.log(
  `\ntokens ratio 100k/100 = ${tokenRatio.toFixed(4)} (goal ≤ 1.05); bootstrap/ping at 10k = ${latency[1].ratio.toFixed(2)}× (goal ≤ 3×)`,
);
writeResult('bootstrap', {
  latency,
  size,
  token_ratio: tokenRatio,
  goals: { latency_ratio_max: 3, token_ratio_max: 1.05 },
});
