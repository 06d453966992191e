// Guidance surface latency: resources/list, resources/read, prompts/get yiasou and
// expand_reference("yiasou") on the firstlight mind server, side by side with the same MCP
// methods on the reference server @modelcontextprotocol/server-everything (static markdown
// documents and a fixed prompt), and the protocol ping on each connection as the floor.
// firstlight re-reads overrides and the taskspace store on every call and assembles ~17 KB.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { benchHome, CLI, countFrom, fmt, printTable, ROOT, stats, timeCalls, writeResult } from './lib.mjs';

const N = countFrom('BENCH_N', 200, 5);

async function client(command, args, cwd) {
  const transport = new StdioClientTransport({ command, args, cwd, stderr: 'ignore' });
  const c = new Client({ name: 'firstlight-bench', version: '0' });
  await c.connect(transport);
  return c;
}

// A project with a taskspace and one override, so every layer and the store are read.
const project = mkdtempSync(join(tmpdir(), 'firstlight-bench-project-'));
mkdirSync(join(project, '.firstlight', 'guidance'), { recursive: true });
writeFileSync(
  join(project, '.firstlight', 'taskspace.json'),
  JSON.stringify({ name: 'Bench', description: 'Benchmark taskspace', initial_prompt: 'Measure things.' }),
);
writeFileSync(
  join(project, '.firstlight', 'guidance', 'release-checklist.md'),
  '---\nname: release-checklist\ndirective: Walk this before tagging.\n---\n# Release checklist\n\nBump, changelog, tag.\n',
);
const home = benchHome(0);

const fl = await client(process.execPath, [CLI, 'serve', '--home', home.dir], project);
const everything = await client(process.execPath, [
  join(ROOT, 'node_modules', '.bin', 'mcp-server-everything'),
]);
const docUri = (await everything.listResources()).resources.find((r) => r.mimeType === 'text/markdown')?.uri;

const ops = [
  ['ping (floor)', () => fl.ping(), () => everything.ping()],
  ['resources/list', () => fl.listResources(), () => everything.listResources()],
  [
    'resources/read (markdown doc)',
    () => fl.readResource({ uri: 'firstlight://guidance/coding-guidelines' }),
    () => everything.readResource({ uri: docUri }),
  ],
  [
    'prompts/get (yiasou vs simple-prompt)',
    () => fl.getPrompt({ name: 'yiasou' }),
    () => everything.getPrompt({ name: 'simple-prompt' }),
  ],
  [
    'tools/call expand_reference("yiasou")',
    () => fl.callTool({ name: 'expand_reference', arguments: { ref: 'yiasou' } }),
    null,
  ],
];

const rows = [];
for (const [op, ours, theirs] of ops) {
  const a = stats(await timeCalls(ours, N));
  const b = theirs ? stats(await timeCalls(theirs, N)) : null;
  rows.push({
    op,
    firstlight_median_ms: a.median,
    firstlight_p95_ms: a.p95,
    everything_median_ms: b?.median ?? null,
  });
}
const promptChars = (await fl.getPrompt({ name: 'yiasou' })).messages[0].content.text.length;
await fl.close();
await everything.close();
home.dispose();
rmSync(project, { recursive: true, force: true });

const floor = rows[0].firstlight_median_ms;
printTable(
  `guidance surface, median of ${N} (firstlight vs server-everything; ping is the floor)`,
  rows.map((r) => ({
    operation: r.op,
    'firstlight ms': fmt(r.firstlight_median_ms),
    'p95 ms': fmt(r.firstlight_p95_ms),
    '× ping': fmt(r.firstlight_median_ms / floor),
    'server-everything ms': r.everything_median_ms === null ? '—' : fmt(r.everything_median_ms),
  })),
);
console.log(`\nyiasou prompt: ${promptChars} chars (4 docs inline + taskspace block)`);
writeResult('guidance', { rows, prompt_chars: promptChars, n: N });
