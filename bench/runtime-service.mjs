// The runtime as a service: 200 one_shot invocations sent at once to `firstlight runtime serve`
// (a process of its own, over loopback HTTP) with a 100 ms scripted substrate and a concurrency
// limit of 50. Throughput against the ideal (200 / 50 = 4 rounds of 100 ms = 400 ms), each
// request's latency (p50, p99, including its wait for a slot), and the service's overhead per
// invocation — an HTTP request's time less the session's substrate time — beside `invoke()` in
// process on the same request, and the same 200 through `invokeMany()` in process, in one run.
// `--smoke` (or BENCH_SMOKE=1): every step on 20 invocations and a handful of samples, in seconds.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime } from '../dist/runtime/index.js';
import * as lib from './lib.mjs';

const { benchHome, fmt, printTable, stats, writeResult } = lib;
// The short mode: lib.mjs's when it has one (bench/run.mjs --smoke), else this bench's own.
const SMOKE = lib.SMOKE ?? (process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1');
const sized = (full, smoke) => (SMOKE ? smoke : full);

const SESSION_MS = 100;
const TOTAL = Number(process.env.BENCH_SERVICE_N ?? sized(200, 20));
const CONCURRENCY = Number(process.env.BENCH_SERVICE_CONCURRENCY ?? sized(50, 5));
const SEQUENTIAL = sized(40, 4);
const IDEAL_MS = Math.ceil(TOTAL / CONCURRENCY) * SESSION_MS;

const home = benchHome(0, 'firstlight-bench-service-');
const project = mkdtempSync(join(tmpdir(), 'firstlight-bench-service-project-'));
const script = join(project, 'session-100ms.yaml');
writeFileSync(
  script,
  [
    'steps:',
    `  - delay_ms: ${SESSION_MS}`,
    '    text: "Two frames, one tension."',
    '    output:',
    '      handoff: { possibilities: [a, b], tensions: [fresh vs fast], unknowns: [traffic], frames: [cost] }',
    '',
  ].join('\n'),
);
const request = (task) => ({
  persona: 'explorer',
  surface: 'synthesis-ledger',
  engagement: 'agent',
  task,
  substrate: `scripted:${script}`,
});

async function post(service, body) {
  const t0 = performance.now();
  const response = await fetch(`${service.url}/v1/invocations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...service.auth },
    body: JSON.stringify(body),
  });
  const result = await response.json();
  const ms = performance.now() - t0;
  if (response.status !== 200 || result.status !== 'completed')
    throw new Error(`invocation answered ${response.status}: ${JSON.stringify(result).slice(0, 400)}`);
  return { ms, substrateMs: result.meta.timings.substrate_ms };
}

const service = await lib.serveRuntime(home.dir, project, ['--concurrency', String(CONCURRENCY)]);
try {
  // Warm both paths (profile, tokenizer-free surface, first ledger writes).
  for (let i = 0; i < 3; i++) await post(service, request(`warm ${i}`));
  const runtime = createRuntime({ home: home.dir, project, cwd: project });
  for (let i = 0; i < 3; i++) await runtime.invoke(request(`warm ${i}`));

  // 1. TOTAL at once through the service.
  const t0 = performance.now();
  const concurrent = await Promise.all(
    Array.from({ length: TOTAL }, (_, i) => post(service, request(`task ${i}`))),
  );
  const wallMs = performance.now() - t0;

  // 2. The same through invokeMany in process, at the same width.
  const t1 = performance.now();
  const inProcess = await runtime.invokeMany(
    Array.from({ length: TOTAL }, (_, i) => request(`task ${i}`)),
    { concurrency: CONCURRENCY },
  );
  const inProcessMs = performance.now() - t1;
  if (inProcess.some((r) => r.status !== 'completed'))
    throw new Error('an in-process invocation did not complete');

  // 3. One at a time: what the service adds per invocation, beside invoke() in process.
  const overHttp = [];
  const inProc = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    const h = await post(service, request(`seq ${i}`));
    overHttp.push(h.ms - h.substrateMs);
    const s = performance.now();
    const r = await runtime.invoke(request(`seq ${i}`));
    inProc.push(performance.now() - s - r.meta.timings.substrate_ms);
  }

  const latency = stats(concurrent.map((c) => c.ms));
  const p99 = [...concurrent.map((c) => c.ms)].sort((a, b) => a - b)[
    Math.min(TOTAL - 1, Math.floor(0.99 * TOTAL))
  ];
  const http = stats(overHttp);
  const proc = stats(inProc);
  printTable(
    `${TOTAL} one_shot invocations at once, ${SESSION_MS} ms scripted substrate, concurrency ${CONCURRENCY} (ideal ${IDEAL_MS} ms)`,
    [
      {
        path: 'runtime serve over HTTP',
        'wall ms': fmt(wallMs),
        'per s': (TOTAL / (wallMs / 1000)).toFixed(1),
        'of ideal': `${((IDEAL_MS / wallMs) * 100).toFixed(1)} %`,
        'p50 ms': fmt(latency.median),
        'p99 ms': fmt(p99),
      },
      {
        path: 'invokeMany() in process',
        'wall ms': fmt(inProcessMs),
        'per s': (TOTAL / (inProcessMs / 1000)).toFixed(1),
        'of ideal': `${((IDEAL_MS / inProcessMs) * 100).toFixed(1)} %`,
        'p50 ms': '-',
        'p99 ms': '-',
      },
    ],
  );
  printTable(
    `overhead per invocation, one at a time (time less the ${SESSION_MS} ms in the substrate), n=${SEQUENTIAL}`,
    [
      {
        path: 'POST /v1/invocations (service, HTTP, ledger records)',
        'p50 ms': fmt(http.median),
        'p95 ms': fmt(http.p95),
        'mean ms': fmt(http.mean),
      },
      {
        path: 'runtime.invoke() in process',
        'p50 ms': fmt(proc.median),
        'p95 ms': fmt(proc.p95),
        'mean ms': fmt(proc.mean),
      },
      {
        path: 'the service adds',
        'p50 ms': fmt(http.median - proc.median),
        'p95 ms': '-',
        'mean ms': fmt(http.mean - proc.mean),
      },
    ],
  );
  const load = loadavg()[0];
  console.log(
    `\nload average ${load.toFixed(1)} on ${cpus().length} cores${SMOKE ? ' (smoke run: figures are not measurements)' : ''}`,
  );
  const data = {
    ...(SMOKE && lib.SMOKE === undefined ? { smoke: true } : {}),
    session_ms: SESSION_MS,
    total: TOTAL,
    concurrency: CONCURRENCY,
    ideal_ms: IDEAL_MS,
    service: {
      wall_ms: wallMs,
      per_s: TOTAL / (wallMs / 1000),
      of_ideal: IDEAL_MS / wallMs,
      latency,
      p99_ms: p99,
    },
    in_process: {
      wall_ms: inProcessMs,
      per_s: TOTAL / (inProcessMs / 1000),
      of_ideal: IDEAL_MS / inProcessMs,
    },
    overhead: { http, in_process: proc, added_p50_ms: http.median - proc.median },
    load_average: load,
    cores: cpus().length,
  };
  writeResult(SMOKE && lib.SMOKE === undefined ? 'runtime-service.smoke' : 'runtime-service', data);
} finally {
  await service.stop();
  home.dispose();
  rmSync(project, { recursive: true, force: true });
}
