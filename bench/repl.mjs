// REPL harness latency, side by side in one run:
//   execute("1+1") round trip   vs  the protocol `ping` on the same server   (goal ≤ 2×)
//   everything.echo() from Python vs a direct callTool to the same backend  (goal ≤ 1.5×)
// The direct callTool goes to a second instance of server-everything started the same way, so
// both paths pay the same backend cost; the difference is the relay (kernel pipe + harness).
// Also beside them, the physical floor of the kernel hop: a bare Node <-> Python round trip over
// a socket pair (the kind of channel the kernel uses), with no protocol at all. execute() is a
// ping plus at least one such round trip, so its ratio to ping cannot go below 1 + floor/ping.

import { spawn } from 'node:child_process';
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

// A Python process that echoes what it reads on fd 3: the floor of any Node <-> Python exchange.
const echoer = spawn(
  'python3',
  ['-c', 'import os\nwhile True:\n    d = os.read(3, 65536)\n    if not d: break\n    os.write(3, d)'],
  { stdio: ['ignore', 'ignore', 'inherit', 'pipe'] },
);
const echoSocket = echoer.stdio[3];
let echoed = () => {};
echoSocket.on('data', () => echoed());
const rawRoundTrip = () =>
  new Promise((resolve) => {
    echoed = resolve;
    echoSocket.write('{"id":1,"op":"ping"}\n');
  });

// Alternate the calls one by one so load from other processes (and GC) hits both sides alike.
const samples = {
  ping: [],
  execute: [],
  floor: [],
  direct: [],
  relay: [],
  relayInPython: [],
  directBatch: [],
};
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
  const floor = await timed(rawRoundTrip);
  const d = await timed(echoDirect);
  const r = await timed(relayOnce);
  if (i < 30) continue;
  samples.ping.push(ping);
  samples.execute.push(one);
  samples.floor.push(floor);
  samples.direct.push(d);
  samples.relay.push(r);
}
// A relay call as Python code sees it: many calls inside one cell, timed in Python. Each batch
// alternates with a batch of as many direct calls, so both see the same load.
const batch = Math.max(10, Math.round(N / 10));
for (let b = 0; b < 20; b++) {
  const inPython = await execute(
    `import time\n_t = time.perf_counter()\nfor _i in range(${batch}): everything.echo(message="hi")\n(time.perf_counter() - _t) / ${batch} * 1000`,
  );
  samples.relayInPython.push(inPython.structuredContent.return_value);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < batch; i++) await echoDirect();
  samples.directBatch.push(Number(process.hrtime.bigint() - t0) / 1e6 / batch);
}
echoSocket.end();

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
    measure: 'floor: bare Node<->Python round trip',
    median_ms: fmt(s.floor.median),
    p95_ms: fmt(s.floor.p95),
    ratio: (s.floor.median / s.ping.median).toFixed(2),
    goal: `(execute ≥ ping + this: ${(1 + s.floor.median / s.ping.median).toFixed(2)}×)`,
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
    floor_vs_ping: s.floor.median / s.ping.median,
  },
  goals: { execute_vs_ping: 2, relay_vs_direct: 1.5 },
  met: { execute_vs_ping: executeRatio <= 2, relay_vs_direct: relayRatio <= 1.5 },
});
