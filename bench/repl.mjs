// REPL harness latency, against its two goals. Two comparisons, each measured on the same
// thing both ways and interleaved, so load from other processes hits both sides alike:
//
// (a) execute("1+1") vs the protocol `ping`: one MCP client, one `firstlight repl serve` over
//     stdio, the two requests alternating call by call.                           goal ≤ 2×
// (b) a relay call to server-everything's `echo` made from Python vs a direct `callTool` to the
//     SAME backend instance through the SAME hub client. A harness runs in this process so the
//     bench can reach its hub: the relay batch is one execute() of a cell making K calls, the
//     direct batch is K awaited callTool()s; both are timed here, around the batch, and divided
//     by K (the relay side thus also carries 1/K of an execute). Batches alternate, and which
//     side goes first alternates too.                                              goal ≤ 1.5×
//
// (c) the kernels side by side: execute("1+1") through MCP on the stdlib kernel and on a Jupyter
//     kernel (`repl serve --kernel jupyter`), against the peer a user would otherwise pick: a
//     bare jupyter_client execute round trip to an ipykernel of the same installation, timed in
//     its own Python process (bench/fixtures/jupyter-bare.py). The four calls (with the protocol
//     ping of the stdlib server as the floor) alternate call by call, order flipping each round.
//     goals: stdlib ≤ bare Jupyter; Jupyter backend ≤ 1.2× bare Jupyter
//
// Extra rows explain the figures; they have no goal: the floor of (a), a tools/call on a minimal
// SDK server whose tool makes one bare round trip to a Python echo (bench/fixtures/
// repl-floor-server.mjs, alternating with its own ping); a bare Node<->Python round trip over
// a socket pair (the least a relay call adds); execute("everything.echo(...)") end to end.

import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { benchHome, connect, countFrom, fmt, printTable, ROOT, sized, stats, writeResult } from './lib.mjs';

// The build measured is ROOT's (BENCH_TREE, for compare.mjs --bench-here); the backend, the
// floors and the peer are this checkout's, the same for every build.
const here = dirname(fileURLToPath(import.meta.url));
const load = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);
const { defaultSettings, silentLogger } = await load('core/index.js');
const { kernelPython, Repl } = await load('repl/index.js');

const N = countFrom('BENCH_N', 400, 8);
const K = countFrom('BENCH_K', 40, 5);
const BATCHES = countFrom('BENCH_BATCHES', 40, 2);
const WARM = sized(40, 2);
const everything = join(here, '..', 'node_modules', '.bin', 'mcp-server-everything');
// Each server gets its own home (made as `firstlight init` makes one: a home must exist).
const homes = [];
const newHome = () => {
  const home = benchHome(0, 'firstlight-bench-repl-');
  homes.push(home);
  return home.dir;
};
const ns = () => process.hrtime.bigint();
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

// ---- (a) execute("1+1") vs ping, one stdio connection ----------------------------------------
const server = await connect(['repl', 'serve', '--home', newHome()]);
await server.callTool({ name: 'install_capability', arguments: { name: 'everything', command: everything } });
const execute = (code) => server.callTool({ name: 'execute', arguments: { code } });
const check = await execute('everything.echo(message="hi")');
if (check.structuredContent?.return_value !== 'Echo: hi')
  throw new Error(`relay check: ${JSON.stringify(check)}`);

// A Python process echoing what it reads on fd 3: the floor of any Node <-> Python exchange.
const echoer = spawn(
  'python3',
  ['-c', 'import os\nwhile True:\n    d = os.read(3, 65536)\n    if not d: break\n    os.write(3, d)'],
  {
    stdio: ['ignore', 'ignore', 'inherit', 'pipe'],
  },
);
const socket = echoer.stdio[3];
let echoed = () => {};
socket.on('data', () => echoed());
const bareRoundTrip = () =>
  new Promise((resolve) => {
    echoed = resolve;
    socket.write('{"id":1,"op":"ping"}\n');
  });

const floorServer = new Client({ name: 'firstlight-bench', version: '0' });
await floorServer.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [join(here, 'fixtures', 'repl-floor-server.mjs')],
    stderr: 'ignore',
  }),
);
const a = { ping: [], execute: [], floorPing: [], floorExecute: [], floor: [], endToEnd: [] };
const calls = {
  ping: () => server.ping(),
  execute: () => execute('1+1'),
  floorPing: () => floorServer.ping(),
  floorExecute: () => floorServer.callTool({ name: 'execute', arguments: { code: '1+1' } }),
};
for (let i = 0; i < N + WARM; i++) {
  const order =
    i % 2 === 0
      ? ['ping', 'execute', 'floorPing', 'floorExecute']
      : ['floorExecute', 'floorPing', 'execute', 'ping'];
  for (const what of order) {
    const t0 = ns();
    await calls[what]();
    if (i >= WARM) a[what].push(ms(t0));
  }
  let t0 = ns();
  await bareRoundTrip();
  if (i >= WARM) a.floor.push(ms(t0));
  if (i % 4 === 0) {
    t0 = ns();
    await execute('everything.echo(message="hi")');
    if (i >= WARM) a.endToEnd.push(ms(t0));
  }
}
socket.end();
await server.close();
await floorServer.close();

// ---- (b) relay from Python vs direct callTool, same backend, same hub client -----------------
// On the stdlib kernel (the goal) and, where ipykernel is installed, on the Jupyter kernel too
// (its own harness and backend), all four batches alternating.
let jupyterSkipped;
let jupyterPython;
try {
  jupyterPython = kernelPython('python3', 'jupyter');
} catch (error) {
  jupyterSkipped = error.message;
}
const settings = defaultSettings().repl;
const relayCell = `for _i in range(${K}): everything.echo(message="hi")`;
const b = { relay: [], direct: [], relayJupyter: [], directJupyter: [] };
const batch = {};
const harnesses = [];
for (const [kernel, suffix] of [['stdlib', ''], ...(jupyterPython ? [['jupyter', 'Jupyter']] : [])]) {
  const repl = await Repl.start({
    home: newHome(),
    log: silentLogger,
    settings: { ...settings, kernel, autosave: false },
    ...(kernel === 'jupyter' ? { python: jupyterPython } : {}),
    cwd: ROOT,
    env: process.env,
  });
  harnesses.push(repl);
  await repl.installCapability({ name: 'everything', command: everything });
  const backend = repl.backend('everything');
  batch[`relay${suffix}`] = async () => {
    const result = await repl.execute(relayCell);
    if (!result.success) throw new Error(result.stderr);
  };
  batch[`direct${suffix}`] = async () => {
    for (let i = 0; i < K; i++) await backend.callTool('echo', { message: 'hi' });
  };
}
const BATCH_WARM = sized(4, 1);
for (let round = 0; round < BATCHES + BATCH_WARM; round++) {
  const kinds = Object.keys(batch);
  const order = round % 2 === 0 ? kinds : [...kinds].reverse();
  for (const what of order) {
    const t0 = ns();
    await batch[what]();
    if (round >= BATCH_WARM) b[what].push(ms(t0) / K);
  }
}
for (const repl of harnesses) await repl.shutdown();
if (!jupyterPython) {
  delete b.relayJupyter;
  delete b.directJupyter;
}

// ---- (c) kernels side by side: stdlib, Jupyter, bare jupyter_client ------------------------
const C_N = countFrom('BENCH_KERNEL_N', 200, 5);
const C_WARM = sized(20, 1);
const c = { floor: [], stdlib: [], jupyter: [], bare: [] };
if (jupyterPython) {
  // The three start at once (two IPython kernels take seconds each); timing starts after.
  const peer = spawn(jupyterPython, [join(here, 'fixtures', 'jupyter-bare.py'), '1+1'], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const lines = createInterface({ input: peer.stdout })[Symbol.asyncIterator]();
  const [stdlibServer, jupyterServer, ready] = await Promise.all([
    connect(['repl', 'serve', '--home', newHome(), '--kernel', 'stdlib']),
    connect(['repl', 'serve', '--home', newHome(), '--kernel', 'jupyter']),
    lines.next(),
  ]);
  if (ready.value !== 'ready') throw new Error(`jupyter-bare.py: ${ready.value}`);
  const one = async (client) => {
    const result = await client.callTool({ name: 'execute', arguments: { code: '1+1' } });
    if (result.structuredContent?.return_value !== 2) throw new Error(JSON.stringify(result));
  };
  const steps = {
    floor: async () => {
      const t0 = ns();
      await stdlibServer.ping();
      return ms(t0);
    },
    stdlib: async () => {
      const t0 = ns();
      await one(stdlibServer);
      return ms(t0);
    },
    jupyter: async () => {
      const t0 = ns();
      await one(jupyterServer);
      return ms(t0);
    },
    bare: async () => {
      peer.stdin.write('go\n');
      return Number((await lines.next()).value);
    },
  };
  for (let i = 0; i < C_N + C_WARM; i++) {
    const order =
      i % 2 === 0 ? ['floor', 'stdlib', 'jupyter', 'bare'] : ['bare', 'jupyter', 'stdlib', 'floor'];
    for (const what of order) {
      const took = await steps[what]();
      if (i >= C_WARM) c[what].push(took);
    }
  }
  peer.stdin.end();
  await new Promise((resolve) => peer.once('exit', resolve));
  await stdlibServer.close();
  await jupyterServer.close();
}

// ---- report -----------------------------------------------------------------------------------
const s = Object.fromEntries(Object.entries({ ...a, ...b }).map(([key, v]) => [key, stats(v)]));
const k = jupyterPython
  ? Object.fromEntries(Object.entries(c).map(([key, v]) => [key, stats(v)]))
  : undefined;
const executeRatio = s.execute.median / s.ping.median;
const relayRatio = s.relay.median / s.direct.median;
const verdict = (ratio, goal) => (ratio <= goal ? 'MET' : 'MISSED');
const row = (measure, x, ratio, goal = '', result = '') => ({
  measure,
  median_ms: fmt(x.median),
  p95_ms: fmt(x.p95),
  ratio: ratio === undefined ? '' : ratio.toFixed(2),
  goal,
  result,
});
printTable(
  `REPL harness latency (medians; (a) n=${N} alternating, (b) ${BATCHES} batches of ${K} alternating)`,
  [
    row('(a) protocol ping', s.ping, 1),
    row('(a) execute("1+1")', s.execute, executeRatio, '≤ 2× ping', verdict(executeRatio, 2)),
    row('(b) direct callTool echo, per call', s.direct, 1),
    row(
      '(b) relay echo from Python, per call',
      s.relay,
      relayRatio,
      '≤ 1.5× direct',
      verdict(relayRatio, 1.5),
    ),
    ...(s.relayJupyter
      ? [
          row('(b) Jupyter kernel: direct callTool echo, per call', s.directJupyter, 1),
          row(
            '(b) Jupyter kernel: relay echo from Python, per call',
            s.relayJupyter,
            s.relayJupyter.median / s.directJupyter.median,
            '(vs its direct)',
          ),
        ]
      : []),
    row('    floor: ping of a minimal server', s.floorPing, 1),
    row(
      '    floor: its tool, one bare Python round trip',
      s.floorExecute,
      s.floorExecute.median / s.floorPing.median,
      '(vs its ping)',
    ),
    row('    bare Node<->Python round trip', s.floor, s.floor.median / s.ping.median, '(vs ping)'),
    row('    execute("everything.echo(...)")', s.endToEnd, s.endToEnd.median / s.ping.median, '(vs ping)'),
  ],
);

if (k) {
  const stdlibRatio = k.stdlib.median / k.bare.median;
  const jupyterRatio = k.jupyter.median / k.bare.median;
  printTable(`REPL kernels side by side: execute("1+1") (medians; n=${C_N}, the four calls alternating)`, [
    row('(c) bare jupyter_client round trip (peer)', k.bare, 1),
    row('(c) firstlight, stdlib kernel', k.stdlib, stdlibRatio, '≤ 1× bare', verdict(stdlibRatio, 1)),
    row('(c) firstlight, Jupyter kernel', k.jupyter, jupyterRatio, '≤ 1.2× bare', verdict(jupyterRatio, 1.2)),
    row('    floor: protocol ping (stdlib server)', k.floor, k.floor.median / k.bare.median, '(vs bare)'),
  ]);
} else {
  process.stdout.write(`\n(c) kernels side by side SKIPPED: ${jupyterSkipped}\n`);
}

writeResult('repl', {
  tree: ROOT,
  n: N,
  batches: BATCHES,
  calls_per_batch: K,
  ms: s,
  ratios: {
    execute_vs_ping: executeRatio,
    relay_vs_direct: relayRatio,
    floor_execute_vs_ping: s.floorExecute.median / s.floorPing.median,
    ...(s.relayJupyter ? { relay_vs_direct_jupyter: s.relayJupyter.median / s.directJupyter.median } : {}),
  },
  goals: {
    execute_vs_ping: 2,
    relay_vs_direct: 1.5,
    stdlib_vs_bare_jupyter: 1,
    jupyter_vs_bare_jupyter: 1.2,
  },
  met: { execute_vs_ping: executeRatio <= 2, relay_vs_direct: relayRatio <= 1.5 },
  kernels: k
    ? {
        n: C_N,
        ms: k,
        ratios: {
          stdlib_vs_bare_jupyter: k.stdlib.median / k.bare.median,
          jupyter_vs_bare_jupyter: k.jupyter.median / k.bare.median,
        },
        met: {
          stdlib_vs_bare_jupyter: k.stdlib.median <= k.bare.median,
          jupyter_vs_bare_jupyter: k.jupyter.median <= 1.2 * k.bare.median,
        },
      }
    : { skipped: jupyterSkipped },
});
for (const home of homes) home.dispose();
