// The runtime service on Postgres, scaled out: TOTAL one_shot invocations (100 ms scripted
// substrate) sent round-robin to 1, 2 and 3 replicas of `firstlight runtime serve --store
// postgres://…` on one throwaway Postgres (a cluster of its own in a temp directory), each
// replica at CONCURRENCY, throughput beside the ideal (replicas × concurrency sessions at once);
// the embedded store's single process beside them in the same run. Then the ledger's cost per
// invocation, in process and one at a time: time inside the ledger's calls, its calls, rows and
// bytes written, on Postgres beside the file store.
// `--smoke` (or BENCH_SMOKE=1): 1 and 2 replicas, a few invocations. No Postgres on the machine:
// it says so, writes a result that says it skipped, and exits 0.
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createFileLedger, createRuntime, openPgLedger } from '../dist/runtime/index.js';
import { findPostgres, startCluster } from '../test/helpers/pg-cluster.mjs';
import * as lib from './lib.mjs';

const { benchHome, fmt, printTable, writeResult } = lib;
const SMOKE = lib.SMOKE ?? (process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1');
const sized = (full, smoke) => (SMOKE ? smoke : full);

const SESSION_MS = 100;
const TOTAL = Number(process.env.BENCH_SCALE_N ?? sized(240, 24));
const CONCURRENCY = Number(process.env.BENCH_SCALE_CONCURRENCY ?? sized(8, 4));
const REPLICAS = sized([1, 2, 3], [1, 2]);
const COST_N = sized(40, 5);

const found = findPostgres();
if (found.skip) {
  console.log(`bench/runtime-scale: skipped: ${found.skip}`);
  writeResult('runtime-scale', { skipped: found.skip });
  process.exit(0);
}

const home = benchHome(0, 'firstlight-bench-scale-');
const project = mkdtempSync(join(tmpdir(), 'firstlight-bench-scale-project-'));
const script = (ms) => {
  const file = join(project, `session-${ms}ms.yaml`);
  writeFileSync(
    file,
    [
      'steps:',
      `  - delay_ms: ${ms}`,
      '    text: "Two frames, one tension."',
      '    output:',
      '      handoff: { possibilities: [a, b], tensions: [fresh vs fast], unknowns: [traffic], frames: [cost] }',
      '',
    ].join('\n'),
  );
  return file;
};
const slow = script(SESSION_MS);
const request = (task, file = slow) => ({
  persona: 'explorer',
  surface: 'synthesis-ledger',
  engagement: 'agent',
  task,
  substrate: `scripted:${file}`,
});

async function post(service, body) {
  const response = await fetch(`${service.url}/v1/invocations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...service.auth },
    body: JSON.stringify(body),
  });
  const result = await response.json();
  if (response.status !== 200 || result.status !== 'completed')
    throw new Error(`invocation answered ${response.status}: ${JSON.stringify(result).slice(0, 400)}`);
}

/** TOTAL at once, round-robin over `services` (each with its url and auth); the wall time in ms. */
async function burst(urls, tag) {
  for (let i = 0; i < urls.length * 2; i++) await post(urls[i % urls.length], request(`warm ${tag} ${i}`));
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: TOTAL }, (_, i) => post(urls[i % urls.length], request(`${tag} ${i}`))),
  );
  return performance.now() - t0;
}

async function createDb(admin, name) {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  return admin.replace(/\/postgres$/, `/${name}`);
}

/** Rows and bytes (with indexes) per invocation of each ledger table, and pg-boss's jobs. */
async function tableGrowth(url, invocations) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT c.relname AS table, n.nspname AS schema, pg_total_relation_size(c.oid)::bigint AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind IN ('r', 'p') AND n.nspname IN ('firstlight', 'pgboss') AND c.relname <> 'migrations'
         AND pg_total_relation_size(c.oid) > 16384 ORDER BY 3 DESC`,
    );
    const out = [];
    for (const r of rows) {
      const count = await client.query(`SELECT count(*)::bigint AS n FROM ${r.schema}."${r.table}"`);
      out.push({
        table: `${r.schema}.${r.table}`,
        rows: Number(count.rows[0].n) / invocations,
        bytes: Number(r.bytes) / invocations,
      });
    }
    return out;
  } finally {
    await client.end();
  }
}

/** Wraps a ledger so the time inside its calls, and the calls, are counted. */
function metered(ledger) {
  const meter = { ms: 0, calls: 0 };
  const wrapped = new Proxy(ledger, {
    get(target, key) {
      const value = target[key];
      if (typeof value !== 'function' || key === 'journalRef' || key === 'close') return value;
      return async (...args) => {
        const t0 = performance.now();
        try {
          return await value.apply(target, args);
        } finally {
          meter.ms += performance.now() - t0;
          meter.calls++;
        }
      };
    },
  });
  return { ledger: wrapped, meter };
}

function dirBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  return total;
}

/** The ledger's cost per invocation, one at a time in process, on `ledger`. */
async function ledgerCost(ledger, bytes, rows) {
  const { ledger: wrapped, meter } = metered(ledger);
  const runtime = createRuntime({ home: home.dir, project, cwd: project, ledger: wrapped });
  const fast = script(0);
  for (let i = 0; i < 3; i++) await runtime.invoke(request(`warm ${i}`, fast));
  const [bytes0, rows0, calls0, ms0] = [await bytes(), await rows(), meter.calls, meter.ms];
  for (let i = 0; i < COST_N; i++) {
    const result = await runtime.invoke(request(`cost ${i}`, fast));
    if (result.status !== 'completed') throw new Error(`a cost run ended ${result.status}`);
  }
  return {
    ms: (meter.ms - ms0) / COST_N,
    calls: (meter.calls - calls0) / COST_N,
    rows: ((await rows()) - rows0) / COST_N,
    bytes: ((await bytes()) - bytes0) / COST_N,
  };
}

const cluster = await startCluster();
const started = [];
try {
  // 1. Throughput: the embedded store in one process, then 1..3 replicas on Postgres.
  const rows = [];
  const embedded = await lib.serveRuntime(home.dir, project, ['--concurrency', String(CONCURRENCY)]);
  started.push(embedded);
  const embeddedMs = await burst([embedded], 'embedded');
  await embedded.stop();
  const ideal = (n) => Math.ceil(TOTAL / (n * CONCURRENCY)) * SESSION_MS;
  rows.push({
    store: 'embedded (files)',
    replicas: 1,
    'wall ms': fmt(embeddedMs),
    'ideal ms': fmt(ideal(1)),
    'per s': fmt((TOTAL / embeddedMs) * 1000),
    'of ideal': fmt(ideal(1) / embeddedMs),
  });
  const throughput = [{ store: 'embedded', replicas: 1, wallMs: embeddedMs, idealMs: ideal(1) }];
  let growth = [];
  for (const n of REPLICAS) {
    const url = await createDb(cluster.url, `scale_${n}`);
    const replicas = [];
    for (let i = 0; i < n; i++)
      replicas.push(
        await lib.serveRuntime(home.dir, project, ['--store', url, '--concurrency', String(CONCURRENCY)]),
      );
    started.push(...replicas);
    const ms = await burst(replicas, `pg${n}`);
    await Promise.all(replicas.map((r) => r.stop()));
    if (n === REPLICAS.at(-1)) growth = await tableGrowth(url, TOTAL + n * 2);
    rows.push({
      store: 'postgres',
      replicas: n,
      'wall ms': fmt(ms),
      'ideal ms': fmt(ideal(n)),
      'per s': fmt((TOTAL / ms) * 1000),
      'of ideal': fmt(ideal(n) / ms),
    });
    throughput.push({ store: 'postgres', replicas: n, wallMs: ms, idealMs: ideal(n) });
  }
  printTable(
    `${TOTAL} one_shot invocations at once, ${SESSION_MS} ms scripted substrate, ${CONCURRENCY} per replica (ideal: replicas × ${CONCURRENCY} at once); ${cpus().length} cores, load ${loadavg()[0].toFixed(2)}`,
    rows,
  );

  printTable(
    "each table's growth per invocation through the service (rows, and bytes with its indexes)",
    growth.map((g) => ({ table: g.table, rows: fmt(g.rows), bytes: fmt(g.bytes) })),
  );

  // 2. The ledger's cost per invocation, in process, one at a time.
  const files = mkdtempSync(join(tmpdir(), 'firstlight-bench-scale-ledger-'));
  const fileCost = await ledgerCost(
    createFileLedger({ dir: files, root: files }),
    async () => dirBytes(files),
    async () => {
      let n = 0;
      for (const entry of readdirSync(files, { recursive: true, withFileTypes: true }))
        if (entry.isFile()) n++;
      return n;
    },
  );
  rmSync(files, { recursive: true, force: true });
  const pgLedger = await openPgLedger(await createDb(cluster.url, 'cost'));
  const tables = [
    'journal',
    'handoffs',
    'sessions',
    'invocations',
    'invocation_events',
    'subscriptions',
    'emissions',
  ];
  const pgCost = await ledgerCost(
    pgLedger,
    async () => {
      const { rows: r } = await pgLedger.pool.query(
        `SELECT sum(pg_total_relation_size(('firstlight.' || t)::regclass))::bigint AS b FROM unnest($1::text[]) t`,
        [tables],
      );
      return Number(r[0].b);
    },
    async () => {
      const { rows: r } = await pgLedger.pool.query(
        `SELECT (SELECT count(*) FROM firstlight.journal) + (SELECT count(*) FROM firstlight.handoffs) + (SELECT count(*) FROM firstlight.sessions) AS n`,
      );
      return Number(r[0].n);
    },
  );
  await pgLedger.close();
  printTable(
    `the ledger's cost per invocation (one at a time, in process, n=${COST_N}; rows: journal rows and handoffs on Postgres, files on the file store)`,
    [
      {
        store: 'file',
        'ms in ledger': fmt(fileCost.ms),
        calls: fmt(fileCost.calls),
        'rows or files': fmt(fileCost.rows),
        bytes: fmt(fileCost.bytes),
      },
      {
        store: 'postgres',
        'ms in ledger': fmt(pgCost.ms),
        calls: fmt(pgCost.calls),
        'rows or files': fmt(pgCost.rows),
        bytes: fmt(pgCost.bytes),
      },
    ],
  );
  writeResult('runtime-scale', {
    total: TOTAL,
    session_ms: SESSION_MS,
    concurrency: CONCURRENCY,
    cores: cpus().length,
    load: loadavg()[0],
    throughput,
    ledger_cost: { file: fileCost, postgres: pgCost },
    table_growth: growth,
  });
} finally {
  await Promise.all(started.map((s) => s.stop()));
  await cluster.destroy();
  home.dispose();
  rmSync(project, { recursive: true, force: true });
}
