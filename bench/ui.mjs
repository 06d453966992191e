// bench/ui: how fast `firstlight ui` paints, on a home with 10,000 memories. One `firstlight ui`
// process, one headless Chromium (Debian's, driven by playwright-core); per round, in a fresh
// tab each: the static keyboard page the same server serves from the package (the floor: no
// work but sending a file), the Wake-up view (the packet and the SessionStart text rendered
// from the home, per host), and a Memory search (recall over the 10,000). Rounds interleave the
// three so load on the machine hits them alike. First contentful paint is read from the page's
// own Paint Timing; the response's end from its Navigation Timing.
// Goals: each view's median first paint under 300 ms and within 3x the static page's. Exits 1 on
// a missed goal. Prints a table, writes bench/results/ui.json.
// `--smoke`: 300 memories and 3 rounds, seconds long, no goals enforced (CI proves it runs).
// Without Chromium (set FIRSTLIGHT_CHROMIUM to another binary) the same pages are timed over
// plain HTTP to the last byte, and the report says so.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCorpus } from './fixtures/memories.mjs';
import { benchHome, CLI, fmt, printTable, stats, writeResult } from './lib.mjs';

const smoke = process.argv.includes('--smoke');
const SIZE = Number(process.env.BENCH_MEMORIES ?? (smoke ? 300 : 10_000));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (smoke ? 3 : 15));
const CHROMIUM = process.env.FIRSTLIGHT_CHROMIUM ?? '/usr/bin/chromium';
const GOAL_MS = 300;
const GOAL_FACTOR = 3;

// The example home plus the generated corpus recall's bench uses; the search asks for two words
// as a person would: one that about 1 in 13 memories holds, one about 1 in 33 (by rank in the
// corpus), so recall scores several hundred candidates, as a real search in a big home does.
const home = benchHome(0, 'firstlight-bench-ui-');
const { memories } = writeCorpus(join(home.dir, 'memory'), SIZE);
const project = mkdtempSync(join(tmpdir(), 'firstlight-bench-ui-project-'));
const QUERY = searchWords(memories);
const PAGES = [
  { name: 'static file (floor)', path: '/assets/keys.html' },
  { name: 'Wake-up', path: '/wakeup' },
  {
    name: `Memory search (${SIZE.toLocaleString('en')} memories)`,
    path: `/memory?q=${encodeURIComponent(QUERY)}`,
  },
];

/** Two words of the corpus by document frequency: the 200th and the 1,000th most common. */
function searchWords(list) {
  const df = new Map();
  for (const m of list)
    for (const w of new Set(`${m.description} ${m.body}`.split(/[^a-z]+/).filter((x) => x.length > 3)))
      df.set(w, (df.get(w) ?? 0) + 1);
  const ranked = [...df].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const pick = (rank) => ranked[Math.min(rank, ranked.length - 1)][0];
  return `${pick(200)} ${pick(1000)}`;
}

/** Starts `firstlight ui` and resolves with its URL and a stop function. */
function startUi() {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [CLI, 'ui', '--no-open', '--port', '0', '--home', home.dir, '--project', project],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const m = /firstlight ui: (http\S+)/.exec(output);
      if (m)
        resolve({
          url: m[1],
          readyMs: performance.now() - started,
          stop: () =>
            new Promise((done) => {
              child.once('exit', done);
              child.kill('SIGTERM');
            }),
        });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`firstlight ui exited ${code}: ${output}`)));
  });
}

async function withChromium(url) {
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'firstlight-bench-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
  });
  const measure = async (path) => {
    const page = await browser.newPage();
    const response = await page.goto(new URL(path, url).href, { waitUntil: 'load' });
    if (response?.status() !== 200) throw new Error(`${path}: HTTP ${response?.status()}`);
    const timing = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const read = () => {
            const fcp = performance.getEntriesByName('first-contentful-paint')[0];
            const nav = performance.getEntriesByType('navigation')[0];
            if (fcp) resolve({ paint: fcp.startTime, response: nav.responseEnd, bytes: nav.decodedBodySize });
            else requestAnimationFrame(read);
          };
          read();
        }),
    );
    await page.close();
    return timing;
  };
  return {
    measure,
    close: () => browser.close().finally(() => rmSync(profile, { recursive: true, force: true })),
  };
}

function withHttp(url) {
  const measure = async (path) => {
    const t0 = performance.now();
    const response = await fetch(new URL(path, url));
    const body = await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${path}: HTTP ${response.status}`);
    const ms = performance.now() - t0;
    return { paint: null, response: ms, bytes: body.byteLength };
  };
  return { measure, close: async () => {} };
}

const ui = await startUi();
const browserAvailable = existsSync(CHROMIUM);
if (!browserAvailable)
  console.log(`no Chromium at ${CHROMIUM}: timing the pages over HTTP instead (no paint)`);
const client = browserAvailable ? await withChromium(ui.url) : withHttp(ui.url);
const samples = Object.fromEntries(
  PAGES.map((p) => [p.path, { paint: [], response: [], bytes: 0, first: null }]),
);
try {
  // The first load of each (a cold recall index, a first packet) is reported apart.
  for (const p of PAGES) samples[p.path].first = await client.measure(p.path);
  for (let round = 0; round < ROUNDS; round++) {
    for (const p of PAGES) {
      const t = await client.measure(p.path);
      if (t.paint !== null) samples[p.path].paint.push(t.paint);
      samples[p.path].response.push(t.response);
      samples[p.path].bytes = t.bytes;
    }
  }
} finally {
  await client.close();
  await ui.stop();
  home.dispose();
  rmSync(project, { recursive: true, force: true });
}

const floor = stats(samples[PAGES[0].path][browserAvailable ? 'paint' : 'response']);
const rows = [];
const misses = [];
for (const p of PAGES) {
  const s = samples[p.path];
  const paint = browserAvailable ? stats(s.paint) : null;
  const response = stats(s.response);
  const main = paint ?? response;
  const ratio = main.median / floor.median;
  const isFloor = p === PAGES[0];
  if (!isFloor && browserAvailable && !smoke) {
    if (main.median >= GOAL_MS)
      misses.push(`${p.name}: median first paint ${main.median.toFixed(1)} ms, goal under ${GOAL_MS} ms`);
    if (ratio > GOAL_FACTOR)
      misses.push(`${p.name}: ${ratio.toFixed(2)}x the static page, goal ${GOAL_FACTOR}x`);
  }
  rows.push({
    page: p.name,
    'first paint p50 ms': paint ? fmt(paint.median) : '-',
    'p95 ms': paint ? fmt(paint.p95) : '-',
    'x static': isFloor ? '1.00' : ratio.toFixed(2),
    'response end p50 ms': fmt(response.median),
    'first load paint ms': s.first.paint === null ? '-' : fmt(s.first.paint),
    'first load response ms': fmt(s.first.response),
    KiB: (s.bytes / 1024).toFixed(1),
  });
}
printTable(
  `firstlight ui on ${SIZE.toLocaleString('en')} memories, ${ROUNDS} rounds${smoke ? ' (smoke)' : ''}, search "${QUERY}"; ${browserAvailable ? 'Chromium first contentful paint' : 'HTTP to the last byte (no Chromium)'}`,
  rows,
);
console.log(
  `\nready (process start to URL printed, the home loaded and its recall index built): ${ui.readyMs.toFixed(0)} ms`,
);
console.log(
  `\ngoals: each view's median first paint < ${GOAL_MS} ms and <= ${GOAL_FACTOR}x the static file's${smoke ? ' (not enforced in --smoke)' : ''}`,
);
for (const miss of misses) console.log(`MISSED: ${miss}`);
writeResult('ui', {
  memories: SIZE,
  rounds: ROUNDS,
  query: QUERY,
  ready_ms: ui.readyMs,
  measure: browserAvailable ? 'chromium-first-contentful-paint' : 'http-last-byte',
  goals: { under_ms: GOAL_MS, within_factor_of_static: GOAL_FACTOR, enforced: browserAvailable && !smoke },
  pages: Object.fromEntries(
    PAGES.map((p) => [
      p.path,
      {
        name: p.name,
        paint: browserAvailable ? stats(samples[p.path].paint) : null,
        response: stats(samples[p.path].response),
        first: samples[p.path].first,
        bytes: samples[p.path].bytes,
      },
    ]),
  ),
  misses,
});
process.exit(misses.length > 0 ? 1 : 0);
