// What firstlight's hooks add to each tool call of a real Claude Code session. The Claude Code
// CLI pinned by the real-host suite (its cache, test/hosts/cache.ts) runs headless against a
// scripted Anthropic model on 127.0.0.1 that calls Read CALLS times, one call a turn, then
// stops. The same session runs with no firstlight hooks, with firstlight's hooks as installed
// (every hook waited for), and with PostToolUse run in the background ("async": true; also with
// an async `sleep 1` and `node -e 0` in its place); the difference of the wall times over CALLS is each hook's cost per
// call. Imported by bench/hook.mjs; skipped, with the reason, when the CLI is not in the cache.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from '../lib.mjs';

const CLAUDE_VERSION = '2.1.197';

/** The cached Claude Code binary (as test/hosts/cache.ts installs it), or null. */
export function claudeBinary() {
  const root = process.env.FIRSTLIGHT_HOSTS_CACHE || join(homedir(), '.cache', 'firstlight-hosts');
  const bin = join(root, `_anthropic-ai_claude-code_${CLAUDE_VERSION}`, 'node_modules', '.bin', 'claude');
  return existsSync(bin) ? bin : null;
}

const sse = (event, data) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/** One streamed Messages answer: a Read call, or the last text. */
function answer(res, turn, file, calls) {
  const id = `msg_${turn}`;
  const block =
    turn < calls
      ? { type: 'tool_use', id: `toolu_${turn}`, name: 'Read', input: {} }
      : { type: 'text', text: '' };
  const delta =
    block.type === 'tool_use'
      ? { type: 'input_json_delta', partial_json: JSON.stringify({ file_path: file }) }
      : { type: 'text_delta', text: 'Done.' };
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(
    [
      sse('message_start', {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model: 'scripted',
          content: [],
          stop_reason: null,
          usage: { input_tokens: 10, output_tokens: 1 },
        },
      }),
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: block }),
      sse('content_block_delta', { type: 'content_block_delta', index: 0, delta }),
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
      sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: block.type === 'tool_use' ? 'tool_use' : 'end_turn', stop_sequence: null },
        usage: { output_tokens: 5 },
      }),
      sse('message_stop', { type: 'message_stop' }),
    ].join(''),
  );
}

/** A scripted model: each session's Nth main-loop request gets the Nth move. */
async function modelServer(file, calls) {
  let turn = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url.includes('/messages') || req.url.includes('count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 10, data: [] }));
        return;
      }
      const parsed = JSON.parse(body || '{}');
      if (!parsed.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'msg_side',
            type: 'message',
            role: 'assistant',
            model: 'scripted',
            content: [{ type: 'text', text: 'ok' }],
            stop_reason: 'end_turn',
            usage: { input_tokens: 1, output_tokens: 1 },
          }),
        );
        return;
      }
      answer(res, turn++, file, calls);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}`, reset: () => (turn = 0) };
}

function run(bin, args, options) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(bin, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    child.on('close', (code) => resolve({ code, ms: performance.now() - started, out }));
  });
}

/**
 * From Claude Code's debug log of one session: for each tool call, the milliseconds from its
 * `tool_dispatch_end` to the next `[API REQUEST]` (the PostToolUse hooks it waits for, and its
 * own work, fall between).
 */
function afterToolGaps(logFile) {
  let text;
  try {
    text = readFileSync(logFile, 'utf8');
  } catch {
    return [];
  }
  const gaps = [];
  let ended = null;
  for (const line of text.split('\n')) {
    const at = Date.parse(line.slice(0, 24));
    if (line.includes('tool_dispatch_end')) ended = at;
    else if (ended !== null && line.includes('[API REQUEST]')) {
      gaps.push(at - ended);
      ended = null;
    }
  }
  return gaps;
}

const TOOL_EVENTS = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure'];

/**
 * The hook set-ups of one project's .claude/settings.local.json, from what install wrote. All but the
 * first keep the session hooks (SessionStart, Stop: a fixed cost per session, not per call).
 */
function variants(settingsFile) {
  const installed = JSON.parse(readFileSync(settingsFile, 'utf8'));
  const without = (events) => {
    const copy = structuredClone(installed);
    for (const e of events) delete copy.hooks[e];
    return copy;
  };
  const { hooks: _all, ...noHooks } = installed;
  // Install waits for PostToolUse (see docs/hosts.md); the same hook run in the background, as
  // Claude Code's `"async": true` would, for comparison.
  const backgroundPost = structuredClone(installed);
  for (const event of ['PostToolUse', 'PostToolUseFailure'])
    for (const group of backgroundPost.hooks[event] ?? []) for (const h of group.hooks) h.async = true;
  // The async PostToolUse replaced by a command that only waits (`sleep 1`: no CPU), and by a bare
  // `node -e 0` (a Node start's CPU, nothing else): Claude Code does not wait for either, so
  // what they add is what another process's CPU costs a session on this machine, not waiting.
  const asyncPost = (command) => {
    const copy = structuredClone(backgroundPost);
    for (const event of ['PostToolUse', 'PostToolUseFailure'])
      for (const group of copy.hooks[event] ?? []) for (const h of group.hooks) h.command = command;
    return copy;
  };
  return {
    'no firstlight hooks': noHooks,
    'session hooks only': without(TOOL_EVENTS),
    '+ PreToolUse': without(['PostToolUse', 'PostToolUseFailure']),
    '+ PreToolUse + PostToolUse async': backgroundPost,
    '+ PreToolUse + PostToolUse waited for (as installed)': installed,
    '+ PreToolUse + async `sleep 1` as PostToolUse': asyncPost('sleep 1'),
    '+ PreToolUse + async `node -e 0` as PostToolUse': asyncPost(`${JSON.stringify(process.execPath)} -e 0`),
  };
}

/**
 * Runs `rounds` rounds of the three set-ups, interleaved; returns per set-up the median session
 * wall time, and the added time per tool call against no hooks.
 */
export async function measureClaudeSession({ calls = 50, rounds = 3 } = {}) {
  const bin = claudeBinary();
  if (!bin)
    return {
      skipped: `Claude Code ${CLAUDE_VERSION} is not in the host cache (npm run test:hosts installs it)`,
    };
  const root = mkdtempSync(join(tmpdir(), 'firstlight-bench-claude-'));
  const project = join(root, 'project');
  const home = join(root, 'home');
  const flHome = join(root, 'firstlight-home');
  mkdirSync(project, { recursive: true });
  mkdirSync(home, { recursive: true });
  const file = join(project, 'notes.txt');
  writeFileSync(file, 'one line\n');
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: root,
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  const fl = (args) => spawnSync(process.execPath, [CLI, ...args], { cwd: project, env, encoding: 'utf8' });
  fl(['init', '--example', '--home', flHome]);
  const install = fl(['install', 'claude', '--project', project, '--home', flHome]);
  if (install.status !== 0)
    return { skipped: `firstlight install claude failed: ${install.stderr.slice(0, 300)}` };
  writeFileSync(
    join(home, '.claude.json'),
    JSON.stringify({ projects: { [project]: { hasTrustDialogAccepted: true } } }),
  );
  // --home is pinned, so install put the hooks in the uncommitted settings.local.json: the
  // set-ups are variants of that file, with the project's MCP server approved in it.
  const settingsFile = join(project, '.claude', 'settings.local.json');
  const local = JSON.parse(readFileSync(settingsFile, 'utf8'));
  writeFileSync(settingsFile, JSON.stringify({ ...local, enabledMcpjsonServers: ['firstlight'] }));
  const setups = variants(settingsFile);
  const model = await modelServer(file, calls);
  const sessionEnv = { ...env, ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'sk-ant-scripted' };
  const args = [
    '-p',
    'Read the notes.',
    '--output-format',
    'stream-json',
    '--verbose',
    // Claude Code's debug log (~/.claude/debug/) stamps each step: how long it took from a
    // Read's end to the next model request is what the PostToolUse hook holds the session up.
    '--debug',
    '--allowedTools',
    'Read',
  ];
  const times = Object.fromEntries(Object.keys(setups).map((k) => [k, []]));
  const gaps = Object.fromEntries(Object.keys(setups).map((k) => [k, []]));
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [name, settings] of Object.entries(setups)) {
        writeFileSync(settingsFile, `${JSON.stringify(settings, null, 2)}\n`);
        model.reset();
        const r = await run(bin, args, { cwd: project, env: sessionEnv });
        const results = (r.out.match(/"type":"tool_result"/g) ?? []).length;
        if (r.code !== 0 || results < calls)
          throw new Error(
            `${name}: exit ${r.code}, ${results} of ${calls} tool results\n${r.out.slice(-800)}`,
          );
        times[name].push(r.ms);
        gaps[name].push(...afterToolGaps(join(home, '.claude', 'debug', 'latest')));
      }
    }
  } finally {
    model.server.close();
    rmSync(root, { recursive: true, force: true });
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const m = Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, median(xs)]));
  const perCall = (a, b) => Math.round(((m[a] - m[b]) / calls) * 10) / 10;
  const rows = Object.keys(times).map((setup) => ({
    setup,
    session_ms: Math.round(m[setup]),
    vs_no_hooks_per_call_ms: perCall(setup, 'no firstlight hooks'),
    // Median, over every call of every round, of a Read's end to the next model request.
    after_tool_ms: gaps[setup].length > 0 ? Math.round(median(gaps[setup]) * 10) / 10 : null,
  }));
  const gapOver = (a, b) => Math.round((median(gaps[a]) - median(gaps[b])) * 10) / 10;
  return {
    calls,
    rounds,
    rows,
    // Each hook's cost per tool call, against the set-up without it.
    pre_tool_use_per_call_ms: perCall('+ PreToolUse', 'session hooks only'),
    post_tool_use_async_per_call_ms: perCall('+ PreToolUse + PostToolUse async', '+ PreToolUse'),
    post_tool_use_waited_per_call_ms: perCall(
      '+ PreToolUse + PostToolUse waited for (as installed)',
      '+ PreToolUse',
    ),
    async_sleep_per_call_ms: perCall('+ PreToolUse + async `sleep 1` as PostToolUse', '+ PreToolUse'),
    async_node_floor_per_call_ms: perCall('+ PreToolUse + async `node -e 0` as PostToolUse', '+ PreToolUse'),
    // What Claude Code's own log shows the async PostToolUse holding up each call (a Read's end
    // to the next model request, against the same set-up without PostToolUse): Claude Code
    // starts the hook and goes on. The wall-time figures above also carry the hook process's CPU,
    // which on a small busy machine slows whatever else runs (the next PreToolUse, Claude Code
    // itself) while the scripted model answers at once; a real model's seconds per turn leave
    // that CPU idle.
    post_tool_use_async_after_tool_ms: gapOver('+ PreToolUse + PostToolUse async', '+ PreToolUse'),
    post_tool_use_waited_after_tool_ms: gapOver(
      '+ PreToolUse + PostToolUse waited for (as installed)',
      '+ PreToolUse',
    ),
    all_hooks_per_call_ms: perCall(
      '+ PreToolUse + PostToolUse waited for (as installed)',
      'no firstlight hooks',
    ),
  };
}
