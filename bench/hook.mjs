// The PreToolUse gate runs on every tool call. Wall time of `firstlight hook pre-tool-use`
// beside bare `node -e 0` (the floor: no hook can start faster), on Claude-shaped transcripts:
// 10 MB with the bootstrap proof at the start (ALLOW: the whole file is read), 10 MB with no
// proof (DENY, answer printed), 60 MB (the newest 32 MB window is read; proof at the end),
// and a tool that is not gated. Goal: <= 1.5x the floor on 10 MB.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stats, writeResult } from './lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'dist', 'cli', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'firstlight-bench-hook-'));
const RUNS = Number(process.env.BENCH_RUNS ?? 21);

const bootstrapLines = (id) => [
  JSON.stringify({
    type: 'assistant',
    message: { content: [{ type: 'tool_use', id, name: 'mcp__firstlight__bootstrap_session', input: {} }] },
  }),
  JSON.stringify({
    type: 'user',
    message: {
      content: [
        {
          type: 'tool_result',
          tool_use_id: id,
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

/** A Claude-shaped transcript of about `mb` megabytes; the proof at the start, the end, or nowhere. */
export function writeTranscript(path, mb, proof = 'start') {
  const lines = [JSON.stringify({ type: 'user', message: { role: 'user', content: 'start' } })];
  if (proof === 'start') lines.push(...bootstrapLines('toolu_boot'));
  let size = lines.join('\n').length;
  writeFileSync(path, '');
  for (let i = 0; size < mb * 1024 * 1024; i++) {
    const line = filler(i);
    lines.push(line);
    size += line.length + 1;
    if (lines.length >= 4096) appendFileSync(path, `${lines.splice(0).join('\n')}\n`);
  }
  if (proof === 'end') lines.push(...bootstrapLines('toolu_late'));
  appendFileSync(path, `${lines.join('\n')}\n`);
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

const median = (xs) => stats(xs).median;

const payload = (transcript, tool = 'Bash') =>
  JSON.stringify({
    session_id: 'bench',
    transcript_path: transcript,
    tool_name: tool,
    tool_input: { command: 'ls' },
  });
const hook = [cli, 'hook', 'pre-tool-use', '--host', 'claude'];

const files = {
  allowed: join(dir, 'allowed.jsonl'),
  denied: join(dir, 'denied.jsonl'),
  big: join(dir, 'big.jsonl'),
};
writeTranscript(files.allowed, 10, 'start');
writeTranscript(files.denied, 10, 'none');
writeTranscript(files.big, 60, 'end');

const cases = [
  { name: 'node -e 0 (floor)', args: ['-e', '0'], input: '', expect: null },
  { name: 'gate ALLOW, 10 MB transcript', args: hook, input: payload(files.allowed), expect: 'allow' },
  { name: 'gate DENY, 10 MB transcript', args: hook, input: payload(files.denied), expect: 'deny' },
  {
    name: 'gate ALLOW, 60 MB transcript (newest 32 MB read)',
    args: hook,
    input: payload(files.big),
    expect: 'allow',
  },
  { name: 'tool not gated', args: hook, input: payload(files.allowed, 'Read'), expect: 'allow' },
];

// Warm the page cache and check every verdict before timing.
for (const c of cases) {
  if (!c.expect) continue;
  const { r } = time(c.args, c.input);
  const verdict =
    r.stdout.trim() === '' ? 'allow' : JSON.parse(r.stdout).hookSpecificOutput?.permissionDecision;
  if (r.status !== 0 || verdict !== c.expect)
    throw new Error(`${c.name}: expected ${c.expect}, got exit ${r.status} ${r.stdout}${r.stderr}`);
}

const samples = cases.map(() => []);
for (let i = 0; i < RUNS; i++) {
  // Interleaved, so load on the machine hits every case alike.
  for (const [k, c] of cases.entries()) samples[k].push(time(c.args, c.input).ms);
}
rmSync(dir, { recursive: true, force: true });

const floor = median(samples[0]);
const rows = cases.map((c, k) => ({
  case: c.name,
  median_ms: Number(median(samples[k]).toFixed(1)),
  vs_floor: Number((median(samples[k]) / floor).toFixed(2)),
}));
console.table(rows);
const ratio = rows[1].vs_floor;
const denyRatio = rows[2].vs_floor;
console.log(
  `gate on a 10 MB transcript: allow ${ratio}x, deny ${denyRatio}x the floor (goal <= 1.5x) -> ${Math.max(ratio, denyRatio) <= 1.5 ? 'MET' : 'MISSED'}`,
);
writeResult('hook', {
  runs: RUNS,
  rows,
  ratio,
  deny_ratio: denyRatio,
  goal: 1.5,
  met: Math.max(ratio, denyRatio) <= 1.5,
});
