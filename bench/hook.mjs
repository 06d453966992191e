// The PreToolUse gate runs on every tool call. Wall time of `firstlight hook pre-tool-use` on a
// 10 MB transcript (bootstrap proof at the start, then realistic filler), beside bare
// `node -e 0` (the floor: no hook can start faster). Goal: <= 1.5x the floor.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'dist', 'cli', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'firstlight-bench-hook-'));
const RUNS = Number(process.env.BENCH_RUNS ?? 21);

/** A Claude-shaped transcript of about `mb` megabytes with a successful bootstrap near the start. */
export function writeTranscript(path, mb) {
  const lines = [
    JSON.stringify({ type: 'user', message: { role: 'user', content: 'start' } }),
    JSON.stringify({
      type: 'assistant',
      message: {
        content: [
          { type: 'tool_use', id: 'toolu_boot', name: 'mcp__firstlight__bootstrap_session', input: {} },
        ],
      },
    }),
    JSON.stringify({
      type: 'user',
      message: {
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'toolu_boot',
            content: [
              { type: 'text', text: JSON.stringify({ schema_version: 1, mind_contract_available: true }) },
            ],
          },
        ],
      },
    }),
  ];
  const filler = (i) =>
    JSON.stringify({
      type: i % 2 ? 'assistant' : 'user',
      uuid: `u-${i}`,
      message: {
        content:
          i % 2
            ? [
                {
                  type: 'text',
                  text: `step ${i}: ${'reading files and thinking about the change. '.repeat(20)}`,
                },
              ]
            : [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: 'x'.repeat(1500) }],
      },
    });
  let size = lines.join('\n').length;
  for (let i = 0; size < mb * 1024 * 1024; i++) {
    const line = filler(i);
    lines.push(line);
    size += line.length + 1;
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

function time(args, input) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, {
    input,
    encoding: 'utf8',
    env: { ...process.env, FIRSTLIGHT_HOME: dir },
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  return { ms, r };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const transcript = join(dir, 'transcript.jsonl');
writeTranscript(transcript, 10);
const allowed = JSON.stringify({
  session_id: 'bench',
  transcript_path: transcript,
  tool_name: 'Bash',
  tool_input: { command: 'ls' },
});
const ungated = JSON.stringify({
  session_id: 'bench',
  transcript_path: transcript,
  tool_name: 'Read',
  tool_input: {},
});
const hook = [cli, 'hook', 'pre-tool-use', '--host', 'claude'];

// Warm the page cache and check the verdicts before timing.
const check = time(hook, allowed);
if (check.r.status !== 0 || check.r.stdout.trim() !== '')
  throw new Error(`gate did not allow: ${check.r.stdout}${check.r.stderr}`);

const samples = { floor: [], gate: [], ungated: [] };
for (let i = 0; i < RUNS; i++) {
  // Interleaved, so load on the machine hits every case alike.
  samples.floor.push(time(['-e', '0'], '').ms);
  samples.gate.push(time(hook, allowed).ms);
  samples.ungated.push(time(hook, ungated).ms);
}
rmSync(dir, { recursive: true, force: true });

const floor = median(samples.floor);
const rows = [
  ['node -e 0 (floor)', floor],
  ['gate, 10 MB transcript, allowed', median(samples.gate)],
  ['gate, tool not gated', median(samples.ungated)],
].map(([name, ms]) => ({
  case: name,
  median_ms: Number(ms.toFixed(1)),
  vs_floor: Number((ms / floor).toFixed(2)),
}));
console.table(rows);
const ratio = rows[1].vs_floor;
console.log(
  `gate on a 10 MB transcript: ${ratio}x the floor (goal <= 1.5x) -> ${ratio <= 1.5 ? 'MET' : 'MISSED'}`,
);
writeFileSync(
  join(here, 'results', 'hook.json'),
  `${JSON.stringify({ runs: RUNS, transcript_mb: 10, rows, ratio, goal: 1.5, met: ratio <= 1.5, node: process.version }, null, 2)}\n`,
);
