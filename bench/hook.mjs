// The hooks run on every tool call (PreToolUse) and every session start (SessionStart). Wall
// time of `firstlight hook …` beside bare `node -e 0` (the floor: no hook can start faster), all
// cases interleaved in one run so load on the machine hits them alike:
// - the gate on Claude-shaped transcripts: 10 MB with the bootstrap proof at the start (ALLOW:
//   the whole file is read), 10 MB with no proof (DENY, answer printed), 60 MB (the newest 32 MB
//   window is read; proof at the end), and a tool that is not gated;
// - SessionStart on a home with 10,000 memories: steady (a new session id each run, nothing
//   changed), and the first run after a memory was added (one new file before each run).
// - PreToolUse on a home with 1,000 applies_to memories (the caution table cached; one memory
//   matches the call and says repeat: true, so every run answers with a caution);
// - PostToolUse on a 10 MB transcript (recorded in the event store, paired with a pending
//   observe(expected=…); the transcript is never read).
// Goals: gate allow and deny on 10 MB, cautions with 1,000 memories and PostToolUse <= 1.5x the
// floor; SessionStart <= 3x steady, <= 5x after a change. `BENCH_BASELINE=path/to/dist/cli/main.js` also times another build of the CLI on
// every case, interleaved (an A/B against the previous build). Exits 1 on a missed goal.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchHome, countFrom, goalMissed, sized, stats, writeResult } from './lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'dist', 'cli', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'firstlight-bench-hook-'));
const RUNS = countFrom('BENCH_RUNS', 21, 1);
const MEMORIES = countFrom('BENCH_MEMORIES', 10_000, 200);
const baseline = process.env.BENCH_BASELINE;

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
    maxBuffer: 64 * 1024 * 1024,
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
const gate = (entry) => [entry, 'hook', 'pre-tool-use', '--host', 'claude'];

const files = {
  allowed: join(dir, 'allowed.jsonl'),
  denied: join(dir, 'denied.jsonl'),
  big: join(dir, 'big.jsonl'),
};
writeTranscript(files.allowed, sized(10, 1), 'start');
writeTranscript(files.denied, sized(10, 1), 'none');
writeTranscript(files.big, sized(60, 2), 'end');

/** A home whose memory/ holds `n` feedback memories with applies_to, one of which matches `Read`. */
function cautionHome(n, tag) {
  const home = mkdtempSync(join(tmpdir(), `firstlight-bench-cautions-${tag}-`));
  const memory = join(home, 'memory');
  mkdirSync(memory, { recursive: true });
  const index = ['# Memory index', ''];
  for (let i = 0; i < n; i++) {
    const file = `feedback_rule_${i}.md`;
    const patterns = i === n - 1 ? ['Read(*secrets*)'] : [`mcp__svc${i}__op_*`, `Bash(deploy-${i} *)`];
    writeFileSync(
      join(memory, file),
      [
        '---',
        `name: ${JSON.stringify(`Rule ${i}`)}`,
        'type: "feedback"',
        `description: ${JSON.stringify(`Rule ${i} about service ${i}`)}`,
        `applies_to: ${JSON.stringify(patterns)}`,
        ...(i === n - 1 ? ['repeat: true'] : []),
        '---',
        `Check the runbook for service ${i} before touching it.`,
        '',
      ].join('\n'),
    );
    index.push(`- [Rule ${i}](${file}) - rule ${i}`);
  }
  writeFileSync(join(memory, 'MEMORY.md'), `${index.join('\n')}\n`);
  return home;
}

/** A home whose event store holds a pending observe(expected=…) for the PostToolUse call. */
function eventsHome(tag) {
  const home = mkdtempSync(join(tmpdir(), `firstlight-bench-events-${tag}-`));
  const now = new Date();
  const day = now.toISOString().slice(0, 10);
  mkdirSync(join(home, 'events'), { recursive: true });
  const filler = Array.from({ length: 2000 }, (_, i) =>
    JSON.stringify({
      id: `ev_f${i}`,
      ts: now.toISOString(),
      kind: 'reflect',
      session: 's',
      observation: 'x'.repeat(100),
    }),
  );
  const expectation = JSON.stringify({
    id: 'ev_expect',
    ts: now.toISOString(),
    kind: 'observe',
    session: 'bench',
    tool_name: 'Bash',
    args: JSON.stringify({ command: 'ls' }),
    args_hash: 'x',
    expected: 'lists 3 files',
  });
  writeFileSync(join(home, 'events', `${day}.jsonl`), `${[...filler, expectation].join('\n')}\n`);
  return home;
}
const extraHomes = [];

// One home per build, so each build's own caches are what it reads.
const homes = [];
const sessionStart = (entry) => {
  const home = benchHome(MEMORIES, 'firstlight-bench-hook-home-');
  homes.push(home);
  let added = 0;
  return {
    args: [entry, 'hook', 'session-start', '--host', 'claude', '--home', home.dir],
    addMemory: () => {
      const n = added++;
      writeFileSync(
        join(home.dir, 'memory', `added_${n}.md`),
        `---\nname: Added memory ${n}\ntype: note\ndescription: written between two sessions\n---\nNew fact ${n}.\n`,
      );
    },
  };
};
let sessionCounter = 0;
const sessionPayload = () =>
  JSON.stringify({ session_id: `bench-${sessionCounter++}`, cwd: dir, source: 'startup' });

const builds = [{ tag: '', entry: cli }];
if (baseline) builds.push({ tag: ' [baseline]', entry: baseline });

const cases = [{ name: 'node -e 0 (floor)', args: ['-e', '0'], input: () => '', expect: null }];
for (const [b, { tag, entry }] of builds.entries()) {
  const ss = sessionStart(entry);
  const cautions = cautionHome(sized(1000, 50), String(b));
  const events = eventsHome(String(b));
  extraHomes.push(cautions, events);
  cases.push(
    {
      name: `gate ALLOW, 10 MB transcript${tag}`,
      args: gate(entry),
      input: () => payload(files.allowed),
      expect: 'allow',
      goal: 1.5,
    },
    {
      name: `gate DENY, 10 MB transcript${tag}`,
      args: gate(entry),
      input: () => payload(files.denied),
      expect: 'deny',
      goal: 1.5,
    },
    {
      name: `gate ALLOW, 60 MB transcript (newest 32 MB read)${tag}`,
      args: gate(entry),
      input: () => payload(files.big),
      expect: 'allow',
    },
    {
      name: `tool not gated${tag}`,
      args: gate(entry),
      input: () => payload(files.allowed, 'Read'),
      expect: 'allow',
    },
    {
      name: `PreToolUse cautions, 1,000 applies_to memories${tag}`,
      args: [entry, 'hook', 'pre-tool-use', '--host', 'claude', '--home', cautions],
      input: () =>
        JSON.stringify({
          session_id: 'bench',
          transcript_path: files.allowed,
          tool_name: 'Read',
          tool_input: { file_path: '/srv/app/secrets.env' },
        }),
      expect: 'caution',
      goal: 1.5,
    },
    {
      name: `PostToolUse, 10 MB transcript${tag}`,
      args: [entry, 'hook', 'post-tool-use', '--host', 'claude', '--home', events],
      input: () =>
        JSON.stringify({
          session_id: 'bench',
          transcript_path: files.allowed,
          hook_event_name: 'PostToolUse',
          tool_name: 'Bash',
          tool_input: { command: 'ls', description: 'list' },
          tool_response: { stdout: 'a\nb\nc', stderr: '' },
          tool_use_id: 'toolu_bench',
          duration_ms: 3,
        }),
      expect: 'allow',
      goal: 1.5,
    },
    {
      name: `SessionStart, ${MEMORIES} memories, steady${tag}`,
      args: ss.args,
      input: sessionPayload,
      expect: 'packet',
      goal: 3,
    },
    {
      name: `SessionStart, ${MEMORIES} memories, after a memory was added${tag}`,
      args: ss.args,
      input: sessionPayload,
      before: ss.addMemory,
      expect: 'packet',
      goal: 5,
    },
  );
}

function verdictOf(r) {
  const out = r.stdout.trim();
  if (out === '') return 'allow';
  const parsed = JSON.parse(out).hookSpecificOutput;
  if (parsed?.additionalContext?.includes('memory files')) return 'packet';
  if (parsed?.additionalContext?.includes('firstlight caution')) return 'caution';
  // PostToolUse: the pending expectation was answered the first time; later runs answer none.
  if (parsed?.hookEventName === 'PostToolUse') return 'allow';
  return parsed?.permissionDecision;
}

// Warm the page cache (and build each home's caches, as the first session on a machine does),
// and check every answer before timing.
for (const c of cases) {
  if (!c.expect) continue;
  c.before?.();
  const { r } = time(c.args, c.input());
  const verdict = verdictOf(r);
  if (r.status !== 0 || verdict !== c.expect)
    throw new Error(`${c.name}: expected ${c.expect}, got exit ${r.status} ${r.stdout}${r.stderr}`);
}

const samples = cases.map(() => []);
for (let i = 0; i < RUNS; i++) {
  // Interleaved, so load on the machine hits every case alike.
  for (const [k, c] of cases.entries()) {
    c.before?.();
    const input = c.input();
    samples[k].push(time(c.args, input).ms);
  }
}
for (const home of homes) home.dispose();
for (const home of extraHomes) rmSync(home, { recursive: true, force: true });
rmSync(dir, { recursive: true, force: true });

const floor = median(samples[0]);
const rows = cases.map((c, k) => ({
  case: c.name,
  median_ms: Number(median(samples[k]).toFixed(1)),
  vs_floor: Number((median(samples[k]) / floor).toFixed(2)),
  goal: c.goal ?? null,
}));
console.table(rows);
const goals = rows.filter((_row, k) => cases[k].goal && !cases[k].name.endsWith('[baseline]'));
for (const r of goals)
  console.log(
    `${r.case}: ${r.vs_floor}x the floor (goal <= ${r.goal}x) -> ${r.vs_floor <= r.goal ? 'MET' : 'MISSED'}`,
  );
const met = goals.every((r) => r.vs_floor <= r.goal);
writeResult('hook', {
  runs: RUNS,
  memories: MEMORIES,
  ...(baseline ? { baseline } : {}),
  rows,
  ratio: rows[1].vs_floor,
  deny_ratio: rows[2].vs_floor,
  cautions_ratio: rows[5].vs_floor,
  post_tool_use_ratio: rows[6].vs_floor,
  session_start_ratio: rows[7].vs_floor,
  session_start_after_change_ratio: rows[8].vs_floor,
  goals: { gate: 1.5, cautions: 1.5, post_tool_use: 1.5, session_start: 3, session_start_after_change: 5 },
  met,
});
if (!met) goalMissed();
