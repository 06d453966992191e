// The hooks run on every tool call (PreToolUse) and every session start (SessionStart). Wall
// time of `firstlight hook …` beside bare `node -e 0` (the floor: no hook can start faster), all
// cases interleaved in one run so load on the machine hits them alike:
// - the gate on Claude-shaped transcripts: 10 MB with the bootstrap proof at the start (ALLOW:
//   the whole file is read), 10 MB with no proof (DENY, answer printed), 60 MB (the newest 32 MB
//   window is read; proof at the end), and a tool that is not gated;
// - SessionStart on a home with 10,000 memories: steady (a new session id each run, nothing
//   changed: the parsed settings, resumption state and guidance come from the home's cache/, as
//   the warm-up run left them), and, on a home of its own, the first run after a memory was added
//   (one new file before each run).
// - PreToolUse on a home with 1,000 applies_to memories (the caution table cached; one memory
//   matches the call and says repeat: true, so every run answers with a caution);
// - PostToolUse on a 10 MB transcript (recorded in the event store, paired with a pending
//   observe(expected=…); the transcript is never read).
// - Stop (Claude Code fires it after every turn): the last words from a 10 MB transcript and the
//   session queued for capture while a capture worker holds the lock (no second worker is
//   spawned), and on a one-line transcript with no worker running (one is spawned, detached).
// - then, with the Claude Code CLI in the real-host cache, a real Claude Code session against a
//   scripted model making 50 Read calls, with and without firstlight's hooks
//   (bench/host-session/claude.mjs): what each hook adds per tool call, PostToolUse waited for
//   as installed and, for comparison, in the background ("async": true).
// Goals: PreToolUse (not gated, gate allow, gate deny, a caution) and PostToolUse <= 1.25x the
// floor (every hook is waited for as installed); SessionStart <= 2x steady, <= 5x after a change.
// The Claude Code session's figures are reported, not judged (they move by tens of ms a call
// from run to run on a busy machine). `BENCH_BASELINE=path/to/dist/cli/main.js` also times another
// build of the CLI on every case, interleaved (an A/B against the previous build). Exits 1 on a
// missed goal. `--smoke`: 3 runs on small homes and transcripts, no Claude Code session, no goals
// (seconds: it proves the bench still runs).
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { measureClaudeSession } from './host-session/claude.mjs';
import { benchHome, printTable, stats, writeResult } from './lib.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'dist', 'cli', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'firstlight-bench-hook-'));
const SMOKE = process.argv.includes('--smoke');
const RUNS = Number(process.env.BENCH_RUNS ?? (SMOKE ? 3 : 21));
const MEMORIES = Number(process.env.BENCH_MEMORIES ?? (SMOKE ? 300 : 10_000));
/** Transcript sizes (MB): the gate's usual file and one past the 32 MB scan window. */
const MB = SMOKE ? { usual: 1, big: 2 } : { usual: 10, big: 60 };
const CAUTIONS = SMOKE ? 50 : 1000;
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

function time(args, input, shell) {
  const start = process.hrtime.bigint();
  const r = spawnSync(shell ? '/bin/sh' : process.execPath, shell ? ['-c', shell.command] : args, {
    input,
    encoding: 'utf8',
    env: { ...process.env, FIRSTLIGHT_HOME: dir, ...(shell?.path ? { PATH: shell.path } : {}) },
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
/**
 * What the installed hooks run for `entry` (a build's dist/cli/main.js): its dist/cli/hook.cjs, or
 * `main.js hook` for a build from before there was one (a baseline).
 */
const hookCommand = (entry, ...args) => {
  const cjs = join(dirname(entry), 'hook.cjs');
  return existsSync(cjs) ? [cjs, ...args] : [entry, 'hook', ...args];
};
const gate = (entry) => hookCommand(entry, 'pre-tool-use', '--host', 'claude');

const files = {
  allowed: join(dir, 'allowed.jsonl'),
  denied: join(dir, 'denied.jsonl'),
  big: join(dir, 'big.jsonl'),
};
writeTranscript(files.allowed, MB.usual, 'start');
writeTranscript(files.denied, MB.usual, 'none');
writeTranscript(files.big, MB.big, 'end');

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

/**
 * Stop, as Claude Code fires it after every turn: the last words captured from the transcript,
 * the session queued for capture, and a capture worker started unless one holds the lock. Each
 * build gets its own home; `running` refreshes the lock as a live worker does (no spawn),
 * `started` removes it (a worker is spawned; its job's transcript is one line, so the detached
 * worker is done in about a node start and stays out of the next rounds' way).
 */
const oneLine = join(dir, 'one-line.jsonl');
writeFileSync(
  oneLine,
  `${JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'Done for now.' }] } })}\n`,
);
function stopHome(tag) {
  const home = benchHome(100, `firstlight-bench-hook-stop-${tag}-`);
  homes.push(home);
  const lock = join(home.dir, 'capture', 'worker.lock');
  return {
    home: home.dir,
    holdLock: () => {
      mkdirSync(lock, { recursive: true });
      const now = new Date();
      utimesSync(lock, now, now);
    },
    dropLock: () => rmSync(lock, { recursive: true, force: true }),
  };
}
const stopHomes = [];
const stopPayload = (transcript) =>
  JSON.stringify({
    session_id: 'bench-stop',
    transcript_path: transcript,
    cwd: dir,
    hook_event_name: 'Stop',
  });

// One home per build and case, so each build's own caches are what it reads, and the steady case
// never follows a change the other case made: a start scanning memory/ within 100 ms of a new
// file writes no overview (docs/mind.md), and the next start on that home would re-stat every
// file, so a faster build made its own "new session" case slower.
const homes = [];
const sessionStart = (entry) => {
  const home = benchHome(MEMORIES, 'firstlight-bench-hook-home-');
  homes.push(home);
  let added = 0;
  return {
    args: hookCommand(entry, 'session-start', '--host', 'claude', '--home', home.dir),
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
  const steady = sessionStart(entry);
  const changing = sessionStart(entry);
  const cautions = cautionHome(CAUTIONS, String(b));
  const events = eventsHome(String(b));
  extraHomes.push(cautions, events);
  const stopRunning = stopHome(`r${b}`);
  const stopStarted = stopHome(`s${b}`);
  stopHomes.push({ entry, home: stopStarted.home });
  cases.push(
    {
      name: `PreToolUse gate ALLOW, ${MB.usual} MB transcript${tag}`,
      args: gate(entry),
      input: () => payload(files.allowed),
      expect: 'allow',
      goal: 1.25,
    },
    {
      name: `PreToolUse gate DENY, ${MB.usual} MB transcript${tag}`,
      args: gate(entry),
      input: () => payload(files.denied),
      expect: 'deny',
      goal: 1.25,
    },
    {
      name: `PreToolUse gate ALLOW, ${MB.big} MB transcript (newest 32 MB read)${tag}`,
      args: gate(entry),
      input: () => payload(files.big),
      expect: 'allow',
    },
    {
      name: `PreToolUse, a tool not gated${tag}`,
      args: gate(entry),
      input: () => payload(files.allowed, 'Read'),
      expect: 'allow',
      goal: 1.25,
    },
    {
      name: `PreToolUse caution match, ${CAUTIONS} applies_to memories${tag}`,
      args: hookCommand(entry, 'pre-tool-use', '--host', 'claude', '--home', cautions),
      input: () =>
        JSON.stringify({
          session_id: 'bench',
          transcript_path: files.allowed,
          tool_name: 'Read',
          tool_input: { file_path: '/srv/app/secrets.env' },
        }),
      expect: 'caution',
      goal: 1.25,
    },
    {
      name: `PostToolUse, ${MB.usual} MB transcript${tag}`,
      args: hookCommand(entry, 'post-tool-use', '--host', 'claude', '--home', events),
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
      goal: 1.25,
    },
    {
      name: `Stop, ${MB.usual} MB transcript, a capture worker running${tag}`,
      args: hookCommand(entry, 'stop', '--host', 'claude', '--home', stopRunning.home),
      input: () => stopPayload(files.allowed),
      before: stopRunning.holdLock,
      expect: 'allow',
    },
    {
      name: `Stop, one-line transcript, a capture worker started${tag}`,
      args: hookCommand(entry, 'stop', '--host', 'claude', '--home', stopStarted.home),
      input: () => stopPayload(oneLine),
      before: stopStarted.dropLock,
      expect: 'allow',
    },
    {
      name: `SessionStart, ${MEMORIES} memories, new session${tag}`,
      args: steady.args,
      input: sessionPayload,
      expect: 'packet',
      goal: 2,
    },
    {
      name: `SessionStart, ${MEMORIES} memories, after a memory was added${tag}`,
      args: changing.args,
      input: sessionPayload,
      before: changing.addMemory,
      expect: 'packet',
      goal: 5,
    },
  );
}

// The launcher, as a host runs a hook (its command through /bin/sh): `firstlight hook …` by name on
// PATH (what install writes when firstlight is on PATH: npm's bin link to dist/cli/firstlight.cjs,
// started through `#!/usr/bin/env node`) against node + the hook entry's path (what it writes
// otherwise). Goal: by name costs at most 1.1x node + path.
const launcherBin = join(dir, 'launcher-bin');
mkdirSync(launcherBin);
symlinkSync(join(dirname(cli), 'firstlight.cjs'), join(launcherBin, 'firstlight'));
const notGated = () => payload(files.allowed, 'Read');
cases.push(
  {
    name: 'launcher: node + path (sh -c), a tool not gated',
    shell: { command: `${process.execPath} ${join(dirname(cli), 'hook.cjs')} pre-tool-use --host claude` },
    input: notGated,
    expect: 'allow',
  },
  {
    name: 'launcher: `firstlight` on PATH (sh -c), a tool not gated',
    shell: {
      command: 'firstlight hook pre-tool-use --host claude',
      path: `${launcherBin}:${process.env.PATH}`,
    },
    input: notGated,
    expect: 'allow',
  },
);

function verdictOf(r) {
  const out = r.stdout.trim();
  if (out === '') return 'allow';
  const parsed = JSON.parse(out).hookSpecificOutput;
  if (/## Memory\n\n\d+ memor/.test(parsed?.additionalContext ?? '')) return 'packet';
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
  const { r } = time(c.args, c.input(), c.shell);
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
    samples[k].push(time(c.args, input, c.shell).ms);
  }
}
// The Stop case's detached workers: `firstlight capture` waits for a running one, then drains
// the queue, so nothing writes into a home as it is removed.
for (const { entry, home } of stopHomes) {
  const main = existsSync(join(dirname(entry), 'main.js')) ? join(dirname(entry), 'main.js') : entry;
  spawnSync(process.execPath, [main, 'capture', '--home', home], { encoding: 'utf8' });
}
for (const home of homes) home.dispose();
for (const home of extraHomes) rmSync(home, { recursive: true, force: true });
rmSync(dir, { recursive: true, force: true });

const floor = median(samples[0]);
const rows = cases.map((c, k) => ({
  case: c.name,
  median_ms: Number(median(samples[k]).toFixed(1)),
  vs_floor: Number((median(samples[k]) / floor).toFixed(2)),
  goal: c.goal ? `<= ${c.goal}x` : '',
}));
printTable(
  `hook processes beside node -e 0 (median of ${RUNS}, interleaved; load average ${loadavg()[0].toFixed(2)})`,
  rows,
);
const goals = SMOKE ? [] : rows.filter((_row, k) => cases[k].goal && !cases[k].name.endsWith('[baseline]'));
const byName = (prefix) => rows.find((r) => r.case.startsWith(prefix) && !r.case.endsWith('[baseline]'));

// A real Claude Code session: what each hook adds per tool call (not in --smoke).
let session = { skipped: '--smoke' };
if (!SMOKE) {
  session = await measureClaudeSession({
    calls: Number(process.env.BENCH_SESSION_CALLS ?? 50),
    rounds: Number(process.env.BENCH_SESSION_ROUNDS ?? 3),
  });
  if (session.skipped) console.log(`\nClaude Code session: skipped (${session.skipped})`);
  else {
    printTable(
      `Claude Code ${'2.1.197'}, ${session.calls} Read calls a session, median of ${session.rounds} (each set-up against no firstlight hooks)`,
      session.rows,
    );
    console.log(
      `per tool call: PreToolUse ${session.pre_tool_use_per_call_ms} ms; PostToolUse async ${session.post_tool_use_async_per_call_ms} ms (goal <= 60), waited for ${session.post_tool_use_waited_per_call_ms} ms; beside them an async \`sleep 1\` ${session.async_sleep_per_call_ms} ms and an async \`node -e 0\` ${session.async_node_floor_per_call_ms} ms`,
    );
    console.log(
      `Claude Code's log, a Read's end to the next model request: PostToolUse async +${session.post_tool_use_async_after_tool_ms} ms, waited for +${session.post_tool_use_waited_after_tool_ms} ms`,
    );
  }
}
let met = true;
const launcher = {
  by_name_ms: byName('launcher: `firstlight`')?.median_ms,
  node_path_ms: byName('launcher: node + path')?.median_ms,
};
launcher.ratio = Number((launcher.by_name_ms / launcher.node_path_ms).toFixed(2));
{
  const ok = launcher.ratio <= 1.1;
  if (!SMOKE) met &&= ok;
  console.log(
    `launcher: \`firstlight hook\` by name ${launcher.by_name_ms} ms, node + path ${launcher.node_path_ms} ms: ${launcher.ratio}x (goal <= 1.1x)${SMOKE ? '' : ` -> ${ok ? 'MET' : 'MISSED'}`}`,
  );
}
for (const r of goals) {
  const ok = r.vs_floor <= Number(r.goal.slice(3, -1));
  met &&= ok;
  console.log(`${r.case}: ${r.vs_floor}x the floor (goal ${r.goal}) -> ${ok ? 'MET' : 'MISSED'}`);
}
writeResult('hook', {
  runs: RUNS,
  memories: MEMORIES,
  smoke: SMOKE,
  load_average: loadavg()[0],
  ...(baseline ? { baseline } : {}),
  rows,
  ratio: byName('PreToolUse gate ALLOW, ')?.vs_floor,
  deny_ratio: byName('PreToolUse gate DENY')?.vs_floor,
  not_gated_ratio: byName('PreToolUse, a tool not gated')?.vs_floor,
  cautions_ratio: byName('PreToolUse caution match')?.vs_floor,
  post_tool_use_ratio: byName('PostToolUse')?.vs_floor,
  session_start_ratio: byName('SessionStart')?.vs_floor,
  stop_worker_running_ratio: byName('Stop, ')?.vs_floor,
  stop_worker_started_ratio: byName('Stop, one-line')?.vs_floor,
  session_start_after_change_ratio: rows.find(
    (r) => r.case.includes('after a memory was added') && !r.case.endsWith('[baseline]'),
  )?.vs_floor,
  launcher,
  claude_session: session,
  goals: {
    launcher_by_name_vs_node_path: 1.1,
    pre_tool_use: 1.25,
    post_tool_use: 1.25,
    session_start: 2,
    session_start_after_change: 5,
  },
  met: SMOKE ? null : met,
});
if (!SMOKE && !met) process.exitCode = 1;
