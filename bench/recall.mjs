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
const DISTRACTORS = Number(process.env.RECALL_BENCH_DISTRACTORS ?? 300);

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

function scoreRuns(queries, rankOf) {
  const per = {};
  const add = (cat, key, v) => {
    per[cat] ??= { n: 0, r5: 0, r10: 0, mrr: 0, noAnswer: 0, falseHits: 0 };
    per[cat][key] += v;
  };
  for (const q of queries) {
    const { files, confident } = rankOf(q.query);
    for (const cat of [q.category, 'all']) {
      if (q.ground_truth.length === 0) {
        add(cat, 'noAnswer', 1);
        if (confident) add(cat, 'falseHits', 1);
        continue;
      }
      const hit = (k) =>
        q.ground_truth.filter((g) => files.slice(0, k).includes(g)).length / q.ground_truth.length;
      const first = files.findIndex((f) => q.ground_truth.includes(f));
      add(cat, 'n', 1);
      add(cat, 'r5', hit(5));
      add(cat, 'r10', hit(10));
      add(cat, 'mrr', first >= 0 ? 1 / (first + 1) : 0);
    }
  }
  const out = {};
  for (const [cat, s] of Object.entries(per)) {
    out[cat] = {
      queries: s.n + s.noAnswer,
      recall_at_5: s.n ? round(s.r5 / s.n) : null,
      recall_at_10: s.n ? round(s.r10 / s.n) : null,
      mrr: s.n ? round(s.mrr / s.n) : null,
      no_answer_false_hit_rate: s.noAnswer ? round(s.falseHits / s.noAnswer) : null,
    };
  }
  return out;
}

// Distractors: memories made of random sequences of the fixture's own words (seeded), so the
// authored memories must be found among look-alikes instead of in a corpus so small that any
// top-5 is a tenth of it. They answer nothing; the ground truth only names authored files.
function distractors(memories, n) {
  const rand = rng(42);
  const words = memories.flatMap((m) => `${m.description} ${m.body}`.toLowerCase().match(/[a-z0-9]+/g) ?? []);
  const pick = (k) => Array.from({ length: k }, () => words[Math.floor(rand() * words.length)]).join(' ');
  const types = ['note', 'session_digest', 'reference', 'project'];
  return Array.from({ length: n }, (_, i) => ({
    file: `distractor_${i}.md`,
    name: pick(3),
    type: types[i % types.length],
    description: pick(10),
    tags: [pick(1)],
    body: `${pick(30)}. ${pick(25)}.`,
  }));
}

function quality(distractorCount) {
  const home = join(scratch, `quality-${distractorCount}`);
  const mem = join(home, 'memory');
  mkdirSync(mem, { recursive: true });
  const memories = JSON.parse(readFileSync(join(fixture, 'memories.json'), 'utf8'));
  for (const m of [...memories, ...distractors(memories, distractorCount)]) writeMemory(mem, m);
  const { queries } = JSON.parse(readFileSync(join(fixture, 'queries.json'), 'utf8'));
  const index = new RecallIndex(new MemoryStore(mem));
  // "Confident" = the top hit contains at least 3/4 of the query's terms (both systems alike).
  const firstlight = scoreRuns(queries, (q) => {
    const r = index.recall(q, { k: 10 }).results;
    return { files: r.map((h) => h.file), confident: (r[0]?.match ?? 0) >= 0.75 };
  });
  const docs = readdirSync(mem).map((file) => ({
    file,
    text: readFileSync(join(mem, file), 'utf8').toLowerCase(),
  }));
  const grep = scoreRuns(queries, (q) => {
    const r = grepRank(q, docs);
    return { files: r.map((h) => h.file), confident: (r[0]?.coverage ?? 0) >= 0.75 };
  });
  return {
    memories: memories.length,
    distractors: distractorCount,
    queries: queries.length,
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
    result.quality_authored_only = quality(0);
    result.quality = quality(DISTRACTORS);
  }
  if (!args.includes('--no-latency')) result.latency = await latency();
  if (!args.includes('--no-concurrency')) result.concurrency = await concurrency();

  const lines = [];
  for (const [label, qr] of [
    ['authored memories only', result.quality_authored_only],
    [`authored memories + ${DISTRACTORS} distractors (the goal is judged here)`, result.quality],
  ]) {
    if (!qr) continue;
    const { firstlight: f, grep: g } = qr;
    lines.push(`Recall quality: ${qr.queries} queries over ${label} (k=10)`);
    lines.push('category            | system     | R@5   | R@10  | MRR   | no-answer confident false hits');
    for (const cat of Object.keys(f)) {
      for (const [name, s] of [
        ['firstlight', f[cat]],
        ['grep', g[cat]],
      ]) {
        lines.push(
          `${cat.padEnd(19)} | ${name.padEnd(10)} | ${fmt(s.recall_at_5)} | ${fmt(s.recall_at_10)} | ${fmt(s.mrr)} | ${s.no_answer_false_hit_rate ?? '-'}`,
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
      `firstlight recall, cold CLI process  ${l.firstlight_cli_cold_process_ms} ms (loads the persisted index)`,
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
