// bench/recall: recall quality on the authored fixture (firstlight BM25 beside a grep
// baseline), recall latency at 10,000 memories (firstlight's `recall` beside
// @modelcontextprotocol/server-memory's `search_nodes`, both over MCP stdio, same content), and
// 8 processes x 500 concurrent `remember`s into one home. One run; prints a table and writes
// bench/results/recall.json. Goals: recall@5 >= grep + 0.10; latency <= 1/5 of server-memory.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { parse as parseYaml } from 'yaml';
import { renderFrontmatter } from '../dist/core/index.js';
import { MemoryStore, RecallIndex } from '../dist/mind/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const CLI = join(root, 'dist', 'cli', 'main.js');
const fixture = join(here, 'fixtures', 'recall');
const scratch = mkdtempSync(join(tmpdir(), 'firstlight-bench-recall-'));
const args = process.argv.slice(2);
const SIZE = Number(process.env.RECALL_BENCH_SIZE ?? 10_000);
const WRITERS = Number(process.env.RECALL_BENCH_WRITERS ?? 8);
const PER_WRITER = Number(process.env.RECALL_BENCH_PER_WRITER ?? 500);

function writeMemory(dir, m) {
  const data = {
    name: m.name,
    type: m.type,
    description: m.description,
    tags: m.tags,
    applies_to: m.applies_to,
    ...(m.extra ?? {}),
  };
  writeFileSync(join(dir, m.file), renderFrontmatter(data, m.body));
}

// ---------- 1. quality ----------
const STOP = new Set(
  'a an and are as at be by can do does for from how i in is it of on or our the to we what when where which who why with'.split(
    ' ',
  ),
);
function grepRank(query, docs) {
  const words = [...new Set(query.toLowerCase().match(/[a-z0-9]+/g) ?? [])].filter(
    (w) => w.length >= 3 && !STOP.has(w),
  );
  const scored = [];
  for (const doc of docs) {
    let distinct = 0;
    let total = 0;
    for (const w of words) {
      const n = doc.text.split(w).length - 1;
      if (n > 0) {
        distinct++;
        total += n;
      }
    }
    if (distinct > 0) scored.push({ file: doc.file, distinct, total, coverage: distinct / words.length });
  }
  scored.sort((a, b) => b.distinct - a.distinct || b.total - a.total || a.file.localeCompare(b.file));
  return scored;
}

// Scoring. Answerable queries: recall@5, recall@10 (share of the relevant memories in the top k)
// and MRR. No-answer queries: 1 on every measure when the system abstains, else 0. firstlight
// abstains when its best hit's `match` is below ABSTAIN_BELOW; grep abstains when no file holds
// every query word (what `grep -l w1 | xargs grep -l w2 ...` would print). Abstaining on an
// answerable query is scored as the results it returned anyway, and counted separately.
const ABSTAIN_BELOW = 0.5;
function scoreRuns(queries, rankOf) {
  const per = {};
  const add = (cat, key, v) => {
    per[cat] ??= {
      n: 0,
      answerable: 0,
      r5: 0,
      r10: 0,
      mrr: 0,
      a5: 0,
      a10: 0,
      amrr: 0,
      noAnswer: 0,
      abstained: 0,
      falseAbstain: 0,
    };
    per[cat][key] += v;
  };
  for (const q of queries) {
    const { files, abstain } = rankOf(q.query);
    for (const cat of [q.category, 'all']) {
      add(cat, 'n', 1);
      if (q.ground_truth.length === 0) {
        add(cat, 'noAnswer', 1);
        if (abstain) {
          add(cat, 'abstained', 1);
          for (const key of ['r5', 'r10', 'mrr']) add(cat, key, 1);
        }
        continue;
      }
      const hit = (k) =>
        q.ground_truth.filter((g) => files.slice(0, k).includes(g)).length / q.ground_truth.length;
      const first = files.findIndex((f) => q.ground_truth.includes(f));
      const rr = first >= 0 ? 1 / (first + 1) : 0;
      add(cat, 'answerable', 1);
      if (abstain) add(cat, 'falseAbstain', 1);
      add(cat, 'r5', hit(5));
      add(cat, 'r10', hit(10));
      add(cat, 'mrr', rr);
      add(cat, 'a5', hit(5));
      add(cat, 'a10', hit(10));
      add(cat, 'amrr', rr);
    }
  }
  const out = {};
  for (const [cat, s] of Object.entries(per)) {
    out[cat] = {
      queries: s.n,
      recall_at_5: round(s.r5 / s.n),
      recall_at_10: round(s.r10 / s.n),
      mrr: round(s.mrr / s.n),
      answerable_recall_at_5: s.answerable ? round(s.a5 / s.answerable) : null,
      answerable_recall_at_10: s.answerable ? round(s.a10 / s.answerable) : null,
      answerable_mrr: s.answerable ? round(s.amrr / s.answerable) : null,
      no_answer_abstained: s.noAnswer ? `${s.abstained}/${s.noAnswer}` : null,
      answerable_abstained: s.answerable ? `${s.falseAbstain}/${s.answerable}` : null,
    };
  }
  return out;
}

// The fixture: authored memories in corpus/*.yaml (compact keys, see people.yaml's header).
function loadCorpus() {
  const memories = [];
  for (const file of readdirSync(join(fixture, 'corpus')).sort()) {
    for (const m of parseYaml(readFileSync(join(fixture, 'corpus', file), 'utf8'))) {
      const session = m.f.startsWith('session_');
      const date = m.w ?? (session ? m.f.slice(8).replace(/_/g, '-') : undefined);
      memories.push({
        file: `${m.f}.md`,
        name: m.n ?? `Session ${date}`,
        type: m.t ?? 'session_digest',
        description: m.d,
        tags: m.g,
        extra: { ...(date ? { date } : {}), ...(m.s ? { status: m.s } : {}), ...(m.x ?? {}) },
        body: m.b,
      });
    }
  }
  const queries = parseYaml(readFileSync(join(fixture, 'queries.yaml'), 'utf8')).map((q, i) => ({
    id: `q${String(i + 1).padStart(2, '0')}`,
    category: q.c,
    query: q.q,
    ground_truth: q.a.map((a) => `${a}.md`),
  }));
  return { memories, queries };
}

function quality() {
  const home = join(scratch, 'quality');
  const mem = join(home, 'memory');
  mkdirSync(mem, { recursive: true });
  const { memories, queries } = loadCorpus();
  for (const m of memories) writeMemory(mem, m);
  const index = new RecallIndex(new MemoryStore(mem));
  const firstlight = scoreRuns(queries, (q) => {
    const r = index.recall(q, { k: 10 }).results;
    return { files: r.map((h) => h.file), abstain: (r[0]?.match ?? 0) < ABSTAIN_BELOW };
  });
  const docs = readdirSync(mem).map((file) => ({
    file,
    text: readFileSync(join(mem, file), 'utf8').toLowerCase(),
  }));
  const grep = scoreRuns(queries, (q) => {
    const r = grepRank(q, docs);
    return { files: r.map((h) => h.file), abstain: (r[0]?.coverage ?? 0) < 1 };
  });
  return {
    memories: memories.length,
    queries: queries.length,
    abstain_below: ABSTAIN_BELOW,
    firstlight,
    grep,
  };
}

// ---------- 2. latency at SIZE memories ----------
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const SYL =
  'ka lo mi ne ru sa to ve zi pa do fe gu hi ja ko li mo nu pe qu ri so tu vo wa xe yo zu ba ce di'.split(
    ' ',
  );

function generate(dir, jsonl, n) {
  const rand = rng(42);
  const vocab = Array.from({ length: 3000 }, () =>
    Array.from({ length: 2 + Math.floor(rand() * 3) }, () => SYL[Math.floor(rand() * SYL.length)]).join(''),
  );
  const words = (k) =>
    Array.from({ length: k }, () => vocab[Math.floor(rand() ** 2 * vocab.length)]).join(' ');
  const lines = [];
  const types = ['note', 'user', 'project', 'reference', 'feedback', 'session_digest'];
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) {
    const m = {
      file: `note_${i}.md`,
      name: `Memory ${i} ${words(3)}`,
      type: types[i % types.length],
      description: `${words(10)} tok${i}`,
      tags: [vocab[i % 50]],
      body: `${words(40)}. ${words(30)} marker tok${i} ${words(20)}.`,
    };
    writeMemory(dir, m);
    lines.push(
      JSON.stringify({
        type: 'entity',
        name: m.name,
        entityType: m.type,
        observations: [m.description, m.body],
      }),
    );
  }
  writeFileSync(jsonl, `${lines.join('\n')}\n`);
}

async function connect(command, cmdArgs, env = {}) {
  const transport = new StdioClientTransport({
    command,
    args: cmdArgs,
    env: { ...process.env, ...env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-recall', version: '0' });
  await client.connect(transport);
  return client;
}

async function timeCalls(client, tool, queries, argsOf) {
  const times = [];
  for (const q of queries) {
    const t0 = performance.now();
    const r = await client.callTool({ name: tool, arguments: argsOf(q) });
    times.push(performance.now() - t0);
    if (r.isError) throw new Error(`${tool} failed: ${JSON.stringify(r.content)}`);
  }
  return summarize(times);
}

async function latency() {
  const home = join(scratch, 'latency');
  const mem = join(home, 'memory');
  const jsonl = join(scratch, 'server-memory.jsonl');
  const t0 = performance.now();
  generate(mem, jsonl, SIZE);
  const generateMs = performance.now() - t0;
  const rand = rng(7);
  const queries = Array.from({ length: 100 }, () => `tok${Math.floor(rand() * SIZE)}`);

  // In-process: cold build from files, then warm calls (what every turn costs a server).
  const store = new MemoryStore(mem);
  const index = new RecallIndex(store);
  let t = performance.now();
  index.recall('warm up');
  const inProcessColdMs = performance.now() - t;
  const inProcess = [];
  for (const q of queries) {
    t = performance.now();
    const r = index.recall(q, { k: 5 });
    inProcess.push(performance.now() - t);
    if (r.results[0]?.file !== `note_${q.slice(3)}.md`) throw new Error(`in-process recall missed ${q}`);
  }

  // firstlight over MCP stdio (the real server, index persisted under cache/ on first use).
  const fl = await connect(process.execPath, [CLI, 'serve', '--home', home]);
  t = performance.now();
  await fl.callTool({ name: 'recall', arguments: { query: 'warm up' } });
  const mcpColdMs = performance.now() - t;
  const firstlight = await timeCalls(fl, 'recall', queries, (q) => ({ query: q, k: 5 }));
  // Another process writes; the next recall must see it (incremental refresh, not a rebuild).
  const writer = spawnSync(
    process.execPath,
    [CLI, 'remember', '--home', home, '--type', 'note', '--name', 'late arrival'],
    {
      input: 'The zebrafish token arrived late.',
      encoding: 'utf8',
    },
  );
  if (writer.status !== 0) throw new Error(writer.stderr);
  t = performance.now();
  const seen = await fl.callTool({ name: 'recall', arguments: { query: 'zebrafish' } });
  const afterWriteMs = performance.now() - t;
  if (!JSON.stringify(seen.structuredContent).includes('late arrival'))
    throw new Error('external remember not visible');
  await fl.close();

  // A cold CLI process using the persisted index.
  t = performance.now();
  const cli = spawnSync(process.execPath, [CLI, 'recall', queries[0], '--home', home, '--json'], {
    encoding: 'utf8',
  });
  const cliColdMs = performance.now() - t;
  if (cli.status !== 0) throw new Error(cli.stderr);
  // The usual case: nothing changed since the index was saved (the run above saved it).
  const cliRuns = [];
  for (const q of queries.slice(1, 6)) {
    t = performance.now();
    const again = spawnSync(process.execPath, [CLI, 'recall', q, '--home', home, '--json'], {
      encoding: 'utf8',
    });
    cliRuns.push(performance.now() - t);
    if (again.status !== 0) throw new Error(again.stderr);
  }
  // Floors: starting the CLI at all, and grep -ril over the same files.
  t = performance.now();
  spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
  const cliHelpMs = performance.now() - t;
  t = performance.now();
  spawnSync('grep', ['-ril', queries[1], mem], { encoding: 'utf8' });
  const grepMs = performance.now() - t;

  // server-memory holding the same content.
  const sm = await connect(join(root, 'node_modules', '.bin', 'mcp-server-memory'), [], {
    MEMORY_FILE_PATH: jsonl,
  });
  await sm.callTool({ name: 'search_nodes', arguments: { query: 'warm up' } });
  const serverMemory = await timeCalls(sm, 'search_nodes', queries, (q) => ({ query: q }));
  await sm.close();

  return {
    memories: SIZE,
    generate_ms: round(generateMs),
    firstlight_mcp: {
      ...firstlight,
      cold_first_call_ms: round(mcpColdMs),
      first_call_after_external_write_ms: round(afterWriteMs),
    },
    firstlight_in_process: { ...summarize(inProcess), cold_build_ms: round(inProcessColdMs) },
    firstlight_cli_cold_process_ms: round(cliColdMs),
    firstlight_cli_unchanged_p50_ms: round(summarize(cliRuns).p50_ms),
    cli_help_floor_ms: round(cliHelpMs),
    grep_ril_floor_ms: round(grepMs),
    server_memory_search_nodes: serverMemory,
    ratio_p50: round(firstlight.p50_ms / serverMemory.p50_ms),
  };
}

// ---------- 3. concurrent writers ----------
async function concurrency() {
  const home = join(scratch, 'concurrency');
  const worker = join(fixture, 'remember-worker.mjs');
  const t0 = performance.now();
  const codes = await Promise.all(
    Array.from(
      { length: WRITERS },
      (_, w) =>
        new Promise((resolve) => {
          const child = spawn(process.execPath, [worker, home, String(w), String(PER_WRITER)], {
            stdio: 'inherit',
          });
          child.on('exit', resolve);
        }),
    ),
  );
  const wallMs = performance.now() - t0;
  const mem = join(home, 'memory');
  const files = readdirSync(mem).filter((f) => f.endsWith('.md') && f !== 'MEMORY.md').length;
  const lines = readFileSync(join(mem, 'MEMORY.md'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('- [')).length;
  const index = new RecallIndex(new MemoryStore(mem));
  let recallable = 0;
  for (let w = 0; w < WRITERS; w++) {
    for (let i = 0; i < PER_WRITER; i++) {
      if (index.recall(`tok${w}x${i}`, { k: 1 }).results[0]?.name === `w${w} m${i}`) recallable++;
    }
  }
  return {
    writers: WRITERS,
    per_writer: PER_WRITER,
    expected: WRITERS * PER_WRITER,
    exit_codes_ok: codes.every((c) => c === 0),
    files,
    index_lines: lines,
    recallable,
    wall_ms: round(wallMs),
    remembers_per_second: round((WRITERS * PER_WRITER) / (wallMs / 1000)),
  };
}

function summarize(times) {
  const s = [...times].sort((a, b) => a - b);
  const at = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return {
    calls: s.length,
    p50_ms: round(at(0.5)),
    p95_ms: round(at(0.95)),
    mean_ms: round(s.reduce((a, b) => a + b, 0) / s.length),
  };
}

function round(n) {
  return Math.round(n * 1000) / 1000;
}

try {
  const result = { bench: 'recall', at: new Date().toISOString(), node: process.version };
  if (!args.includes('--no-quality')) {
    result.quality = quality();
  }
  if (!args.includes('--no-latency')) result.latency = await latency();
  if (!args.includes('--no-concurrency')) result.concurrency = await concurrency();

  const lines = [];
  if (result.quality) {
    const qr = result.quality;
    const { firstlight: f, grep: g } = qr;
    lines.push(
      `Recall quality: ${qr.queries} queries over ${qr.memories} authored memories (no-answer = 1 when abstaining)`,
    );
    lines.push(
      'category          | system     | R@5   | R@10  | MRR   | no-answer abstained | answerable abstained',
    );
    for (const cat of Object.keys(f)) {
      for (const [name, s] of [
        ['firstlight', f[cat]],
        ['grep', g[cat]],
      ]) {
        lines.push(
          `${cat.padEnd(17)} | ${name.padEnd(10)} | ${fmt(s.recall_at_5)} | ${fmt(s.recall_at_10)} | ${fmt(s.mrr)} | ${String(s.no_answer_abstained ?? '-').padEnd(19)} | ${s.answerable_abstained ?? '-'}`,
        );
      }
    }
    const delta = round(f.all.recall_at_5 - g.all.recall_at_5);
    qr.goal = { recall_at_5_delta: delta, met: delta >= 0.1 };
    lines.push(`recall@5 firstlight - grep: ${delta} (goal >= 0.10: ${delta >= 0.1 ? 'MET' : 'MISSED'})`, '');
  }
  if (result.latency) {
    const l = result.latency;
    lines.push('', `Recall latency at ${l.memories} memories (100 single-token queries, warm)`);
    lines.push(
      `firstlight recall over MCP stdio     p50 ${l.firstlight_mcp.p50_ms} ms  p95 ${l.firstlight_mcp.p95_ms} ms  (first call, building the index: ${l.firstlight_mcp.cold_first_call_ms} ms; first call after another process's remember: ${l.firstlight_mcp.first_call_after_external_write_ms} ms)`,
    );
    lines.push(
      `firstlight recall in-process         p50 ${l.firstlight_in_process.p50_ms} ms  p95 ${l.firstlight_in_process.p95_ms} ms  (cold build ${l.firstlight_in_process.cold_build_ms} ms)`,
    );
    lines.push(
      `firstlight recall, cold CLI process  ${l.firstlight_cli_unchanged_p50_ms} ms p50 with the saved index current; ${l.firstlight_cli_cold_process_ms} ms right after another process's remember (floors: firstlight --help ${l.cli_help_floor_ms} ms, grep -ril ${l.grep_ril_floor_ms} ms)`,
    );
    lines.push(
      `server-memory search_nodes over MCP  p50 ${l.server_memory_search_nodes.p50_ms} ms  p95 ${l.server_memory_search_nodes.p95_ms} ms`,
    );
    l.goal = { ratio_p50: l.ratio_p50, met: l.ratio_p50 <= 0.2 };
    lines.push(
      `goal latency <= 1/5 of server-memory: ratio ${l.ratio_p50} -> ${l.goal.met ? 'MET' : 'MISSED'}`,
    );
  }
  if (result.concurrency) {
    const c = result.concurrency;
    lines.push('', `Concurrent remember: ${c.writers} processes x ${c.per_writer}`);
    lines.push(
      `files ${c.files}/${c.expected}, index lines ${c.index_lines}/${c.expected}, recallable ${c.recallable}/${c.expected}, wall ${Math.round(c.wall_ms)} ms (${Math.round(c.remembers_per_second)} remembers/s)`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  mkdirSync(join(here, 'results'), { recursive: true });
  writeFileSync(join(here, 'results', 'recall.json'), `${JSON.stringify(result, null, 2)}\n`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

function fmt(v) {
  return v === null || v === undefined ? '  -  ' : v.toFixed(3);
}
