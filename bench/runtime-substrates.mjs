// Persona runtime overhead on a real substrate: invoke() with the `anthropic` substrate (the
// official SDK, streamed) against the scripted model server on loopback answering every model
// request after 500 ms, beside the same substrate called directly with a hand-built request.
// Overhead = invoke's wall time minus the time spent inside the substrate (meta.timings);
// the substrate's own cost over the 500 ms (SDK, HTTP, SSE parsing) is its own column.
// Goal: runtime overhead at most 2 % of the session (10 ms).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { createRuntime, createSubstrate, ScriptedSubstrate } from '../dist/runtime/index.js';
import { bespokeRequest, fmt, printTable, ROOT, stats, validatorPlace, writeResult } from './lib.mjs';

const MODEL_MS = 500;
const N = Number(process.env.BENCH_RUNTIME_N ?? 20);
const GOAL_MS = MODEL_MS * 0.02;

// The scripted model server is TypeScript (test/hosts/); bundle it for this plain-Node run.
const scratch = mkdtempSync(join(tmpdir(), 'firstlight-bench-substrates-'));
const serverModule = join(scratch, 'model-server.mjs');
await build({
  entryPoints: [join(ROOT, 'test', 'hosts', 'model-server.ts')],
  bundle: true,
  format: 'esm',
  platform: 'node',
  outfile: serverModule,
  logLevel: 'warning',
});
const { startModelServer } = await import(serverModule);

const findings = {
  handoff: { findings: [{ id: 'f1', summary: 'no TTL', disposition: 'fix', evidence: 'src/cache.ts:12' }] },
};
const answer = `One finding.\n\n\`\`\`json\n${JSON.stringify(findings, null, 2)}\n\`\`\``;
const model = await startModelServer({ fallback: { text: answer, delayMs: MODEL_MS } });

const place = validatorPlace('substrates');
const { home, project } = place;
const env = { ANTHROPIC_API_KEY: 'sk-ant-bench', ANTHROPIC_BASE_URL: model.url };
const spec = 'anthropic:claude-bench';
const runtime = createRuntime({ home: home.dir, project, cwd: project, env });
const artifact = await place.build(runtime);

// Bespoke wiring: the same substrate called directly with a hand-built request.
async function bespoke() {
  const substrate = createSubstrate(spec, { env });
  const t0 = performance.now();
  const result = await substrate.run(bespokeRequest());
  const total = performance.now() - t0;
  if (result.status !== 'completed')
    throw new Error(`bespoke run ${result.status}: ${result.failure?.message}`);
  return { total, substrate: result.substrateMs, overhead: total - result.substrateMs };
}

async function viaRuntime(substrate = spec) {
  const t0 = performance.now();
  const result = await runtime.invoke({
    persona: 'auditor',
    role: 'validator',
    surface: 'audit',
    engagement: 'agent',
    task: 'Validate the cache against its claims.',
    handoffs: [artifact],
    substrate,
  });
  const total = performance.now() - t0;
  if (result.status !== 'completed')
    throw new Error(`bench invoke ${result.status}: ${JSON.stringify(result.meta)}`);
  const inside = result.meta.timings.substrate_ms;
  return { total, substrate: inside, overhead: total - inside };
}

async function measure(fn, n, warm) {
  for (let i = 0; i < warm; i++) await fn();
  const rows = [];
  for (let i = 0; i < n; i++) rows.push(await fn());
  return {
    total: stats(rows.map((r) => r.total)),
    substrate: stats(rows.map((r) => r.substrate)),
    overhead: stats(rows.map((r) => r.overhead)),
  };
}

// The same pipeline on the scripted substrate (the same answer after the same 500 ms): what
// invoke() costs whatever the substrate, so the difference is the real substrate's wiring.
const scripted = () =>
  viaRuntime(
    new ScriptedSubstrate({ steps: [{ delay_ms: MODEL_MS, text: 'One finding.', output: findings }] }),
  );
const results = {
  bespoke: await measure(bespoke, N, 2),
  invoke: await measure(() => viaRuntime(), N, 2),
  scripted: await measure(scripted, N, 2),
};
const row = (name, r) => ({
  path: name,
  n: r.total.n,
  'total p50 ms': fmt(r.total.median),
  'substrate p50 ms': fmt(r.substrate.median),
  'substrate over model ms': fmt(r.substrate.median - MODEL_MS),
  'overhead p50 ms': fmt(r.overhead.median),
  'overhead p95 ms': fmt(r.overhead.p95),
  'overhead % of session': `${((r.overhead.median / r.substrate.median) * 100).toFixed(2)} %`,
});
printTable(
  `invoke() overhead on the anthropic substrate, model answering in ${MODEL_MS} ms (goal: <= ${GOAL_MS} ms, 2 %)`,
  [
    row('bespoke: anthropic substrate.run() directly', results.bespoke),
    row('runtime.invoke() on anthropic: validator, artifact handoff, journal, handoff write', results.invoke),
    row('runtime.invoke() on the scripted substrate, same session (peer)', results.scripted),
  ],
);
const overhead = results.invoke.overhead.median;
const verdict = overhead <= GOAL_MS ? 'meets' : 'misses';
console.log(
  `\ninvoke overhead on anthropic p50 ${overhead.toFixed(3)} ms ${verdict} the ${GOAL_MS} ms goal` +
    ` (scripted substrate: ${results.scripted.overhead.median.toFixed(3)} ms)`,
);
writeResult('runtime-substrates', { model_ms: MODEL_MS, goal_ms: GOAL_MS, verdict, results });
await model.close();
place.dispose();
rmSync(scratch, { recursive: true, force: true });
if (verdict !== 'meets') process.exitCode = 1;
