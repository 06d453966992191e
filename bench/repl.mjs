// REPL harness latency, side by side in one run:
//   execute("1+1") round trip   vs  the protocol `ping` on the same server   (goal ≤ 2×)
//   everything.echo() from Python vs a direct callTool to the same backend  (goal ≤ 1.5×)
// The direct callTool goes to a second instance of server-everything started the same way, so
// both paths pay the same backend cost; the difference is the relay (kernel pipe + harness).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connect, fmt, printTable, ROOT, stats, writeResult } from './lib.mjs';

const N = Number(process.env.BENCH_N ?? 300);
const everything = join(ROOT, 'node_modules', '.bin', 'mcp-server-everything');
const home = mkdtempSync(join(tmpdir(), 'firstlight-bench-repl-'));

const repl = await connect(['repl', 'serve', '--home', home]);
await repl.callTool({ name: 'install_capability', arguments: { name: 'everything', command: everything } });

const direct = new Client({ name: 'firstlight-bench', version: '0' });
await direct.connect(new StdioClientTransport({ command: everything, args: [], stderr: 'ignore' }));

const execute = (code) => repl.callTool({ name: 'execute', arguments: { code } });
const check = await execute('everything.echo(message="hi")');
if (check.structuredContent?.return_value !== 'Echo: hi')
  throw new Error(`relay check failed: ${JSON.stringify(check)}`);

// Alternate the calls one by one so load from other processes (and GC) hits both sides alike.
const samples = { ping: [], execute: [], direct: [], relay: [], relayInPython: [] };
const timed = async (fn) => {
  const t0 = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
};
const echoDirect = () => direct.callTool({ name: 'echo', arguments: { message: 'hi' } });
const relayOnce = () => execute('everything.echo(message="hi")');
for (let i = 0; i < N + 30; i++) {
  const ping = await timed(() => repl.ping());
  const one = await timed(() => execute('1+1'));
  const d = await timed(echoDirect);
  const r = await timed(relayOnce);
  if (i < 30) continue;
  samples.ping.push(ping);
  samples.execute.push(one);
  samples.direct.push(d);
  samples.relay.push(r);
}
// A relay call as Python code sees it: many calls inside one cell, timed in Python, each batch
// beside the same number of direct calls.
for (let b = 0; b < 10; b++) {
  const batch = Math.max(10, Math.round(N / 10));
  const inPython = await execute(
    `import time\n_t = time.perf_counter()\nfor _i in range(${batch}): everything.echo(message="hi")\n(time.perf_counter() - _t) / ${batch} * 1000`,
  );
  samples.relayInPython.push(inPython.structuredContent.return_value);
}
const directBatch = [];
for (let b = 0; b < 10; b++) {
  const batch = Math.max(10, Math.round(N / 10));
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < batch; i++) await echoDirect();
  directBatch.push(Number(process.hrtime.bigint() - t0) / 1e6 / batch);
}
samples.directBatch = directBatch;

const s = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, stats(v)]));
const executeRatio = s.execute.median / s.ping.median;
const relayRatio = s.relayInPython.median / s.directBatch.median;
const relayEndToEndRatio = s.relay.median / s.direct.median;
const rows = [
  {
    measure: 'protocol ping (floor)',
    median_ms: fmt(s.ping.median),
    p95_ms: fmt(s.ping.p95),
    ratio: '1.00',
    goal: '',
  },
  {
    measure: 'execute("1+1")',
    median_ms: fmt(s.execute.median),
    p95_ms: fmt(s.execute.p95),
    ratio: executeRatio.toFixed(2),
    goal: '≤ 2×',
  },
  {
    measure: 'direct callTool echo (peer)',
    median_ms: fmt(s.direct.median),
    p95_ms: fmt(s.direct.p95),
    ratio: '1.00',
    goal: '',
  },
  {
    measure: 'relay echo, per call inside Python',
    median_ms: fmt(s.relayInPython.median),
    p95_ms: fmt(s.relayInPython.p95),
    ratio: (s.relayInPython.median / s.directBatch.median).toFixed(2),
    goal: '≤ 1.5× (vs batch below)',
  },
  {
    measure: 'direct callTool echo, in a loop',
    median_ms: fmt(s.directBatch.median),
    p95_ms: fmt(s.directBatch.p95),
    ratio: '1.00',
    goal: '',
  },
  {
    measure: 'execute("everything.echo(...)") end to end',
    median_ms: fmt(s.relay.median),
    p95_ms: fmt(s.relay.p95),
    ratio: relayEndToEndRatio.toFixed(2),
    goal: '(one MCP hop more than direct)',
  },
];
printTable(`REPL harness latency (n=${N} each, medians)`, rows);

await direct.close();
await repl.close();
rmSync(home, { recursive: true, force: true });
writeResult('repl', {
  n: N,
  ms: s,
  ratios: {
    execute_vs_ping: executeRatio,
    relay_vs_direct: relayRatio,
    relay_end_to_end_vs_direct: relayEndToEndRatio,
  },
  goals: { execute_vs_ping: 2, relay_vs_direct: 1.5 },
  met: { execute_vs_ping: executeRatio <= 2, relay_vs_direct: relayRatio <= 1.5 },
});
