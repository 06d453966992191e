/**
 * Issue 35, item 6: the gate's gaps, each reproduced through the real hook pipeline (runHook,
 * what `firstlight hook pre-tool-use` runs) with the host's own payload and transcript shapes.
 * - the REPL's code tools under every spelling a host uses, and where the host names the server;
 * - a Codex rollout or Gemini session file of another session proves nothing for this one;
 * - an empty or unusable gated-tools setting means the default list, said on stderr;
 * - the default list holds each host's own code-running tools.
 * (A degraded bootstrap_session revoking the record runs against the real server:
 * test/e2e/record-gate.test.ts.)
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type HostId, PENDING_WAIT_ENV, runHook } from '../../../src/host/index.js';
import { REPO_ROOT, tempDir } from '../../helpers/index.js';

const TRANSCRIPTS = join(REPO_ROOT, 'test', 'fixtures', 'transcripts');

let work: { dir: string; dispose: () => void };
beforeAll(() => {
  work = tempDir('firstlight-gate-gaps-');
});
afterAll(() => work.dispose());
beforeEach(() => {
  writeFileSync(join(work.dir, 'firstlight.yaml'), '');
  // A transcript's proof is kept as the session's record: each case starts without one.
  rmSync(join(work.dir, 'cache'), { recursive: true, force: true });
});

async function gate(host: HostId, payload: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) {
  const out = await runHook({
    event: 'pre-tool-use',
    host,
    home: work.dir,
    env: { [PENDING_WAIT_ENV]: '0', ...env },
    cwd: work.dir,
    stdin: JSON.stringify(payload),
  });
  if (out.stdout === '') return { allowed: true, reason: '', stderr: out.stderr ?? '' };
  const answer = JSON.parse(out.stdout) as Record<string, string> & {
    hookSpecificOutput?: Record<string, string>;
  };
  const inner = answer.hookSpecificOutput ?? {};
  const decision = inner.permissionDecision ?? answer.permissionDecision ?? answer.decision;
  const reason = inner.permissionDecisionReason ?? answer.permissionDecisionReason ?? answer.reason ?? '';
  return { allowed: decision !== 'deny', reason, stderr: out.stderr ?? '' };
}

const codexPayload = (tool: string, session: string, transcript: string | null = null) => ({
  session_id: session,
  transcript_path: transcript ?? join(work.dir, 'no-transcript.jsonl'),
  cwd: '/work/p',
  hook_event_name: 'PreToolUse',
  model: 'gpt-5-codex',
  permission_mode: 'default',
  tool_name: tool,
  tool_input: { code: 'print(1)' },
  tool_use_id: 'call_x',
});

const geminiPayload = (tool: string, session: string, extra: Record<string, unknown> = {}) => ({
  session_id: session,
  transcript_path: join(work.dir, 'no-transcript.jsonl'),
  cwd: '/work/p',
  hook_event_name: 'BeforeTool',
  timestamp: '2026-11-27T23:56:06.671Z',
  tool_name: tool,
  tool_input: { code: 'print(1)' },
  ...extra,
});

describe('issue 35: the REPL rule matches every spelling a host uses', () => {
  const CODE_TOOLS = ['execute', 'install_capability', 'restore_state'];
  // `<server>__<tool>`: older Codex, and Gemini CLI on a name clash (with `-` kept or turned into `_`).
  for (const spell of [(t: string) => `firstlight-repl__${t}`, (t: string) => `firstlight_repl__${t}`])
    for (const host of ['codex', 'gemini'] as const)
      it(`${host}: ${spell('execute')} is denied before bootstrap`, async () => {
        for (const tool of CODE_TOOLS) {
          const name = spell(tool);
          const payload = host === 'codex' ? codexPayload(name, 's-1') : geminiPayload(name, 's-1');
          const verdict = await gate(host, payload);
          expect(verdict.allowed, `${name} ran before bootstrap`).toBe(false);
          expect(verdict.reason).toContain(`${name} is gated (default rule`);
        }
      });

  it("Gemini CLI's mcp_context names the server and tool: that decides, whatever the name", async () => {
    const context = (tool: string) => ({
      mcp_context: { server_name: 'firstlight-repl', tool_name: tool, command: 'firstlight' },
    });
    // A spelling no glob of the list names on its own.
    for (const tool of CODE_TOOLS) {
      const verdict = await gate('gemini', geminiPayload(`repl_${tool}`, 's-2', context(tool)));
      expect(verdict.allowed, tool).toBe(false);
    }
    // The REPL's read-only tools still run.
    expect((await gate('gemini', geminiPayload('repl_state', 's-2', context('state')))).allowed).toBe(true);
    // A glob written in Claude Code's form matches Gemini's call of the same server's tool.
    writeFileSync(join(work.dir, 'firstlight.yaml'), 'gate:\n  add: ["mcp__db__query"]\n');
    const db = { mcp_context: { server_name: 'db', tool_name: 'query' } };
    const verdict = await gate('gemini', geminiPayload('db__query', 's-2', db));
    expect(verdict.allowed).toBe(false);
    expect(verdict.reason).toContain('rule from gate.add in firstlight.yaml "mcp__db__query"');
  });
});

describe("issue 35: Codex and Gemini accept only this session's transcript lines", () => {
  const copy = (from: string, to: string, edit: (text: string) => string = (t) => t) => {
    const path = join(work.dir, to);
    writeFileSync(path, edit(readFileSync(join(TRANSCRIPTS, from), 'utf8')));
    return path;
  };
  const CODEX_SESSION = '0199a2c4-7d1e-7c31-9a55-3f0c2f6e1b10';
  const GEMINI_SESSION = '5b1f0c2e-8a47-4d7e-9a0b-2f3c4d5e6f70';

  it("Codex: another session's rollout does not unlock this one", async () => {
    const rollout = join(TRANSCRIPTS, 'codex', 'success-structured.jsonl');
    expect((await gate('codex', codexPayload('Bash', CODEX_SESSION, rollout))).allowed).toBe(true);
    const other = await gate('codex', codexPayload('Bash', 'another-session', rollout));
    expect(other.allowed).toBe(false);
    expect(other.reason).toContain(`session "${CODEX_SESSION}"`);
  });

  it("Codex: lines after another session's session_meta (a forked copy) prove nothing", async () => {
    const lines = readFileSync(join(TRANSCRIPTS, 'codex', 'success-structured.jsonl'), 'utf8').split('\n');
    const meta = lines[0]!;
    const parent = meta.replaceAll(CODEX_SESSION, 'parent-session');
    // This session's meta, then the parent's meta and its successful bootstrap.
    const forked = join(work.dir, 'forked.jsonl');
    writeFileSync(forked, [meta, parent, ...lines.slice(1)].join('\n'));
    expect((await gate('codex', codexPayload('Bash', CODEX_SESSION, forked))).allowed).toBe(false);
    // The parent's lines first, then this session's meta and its own bootstrap: allowed.
    const resumed = join(work.dir, 'resumed.jsonl');
    writeFileSync(resumed, [parent, ...lines.slice(1), meta, ...lines.slice(1)].join('\n'));
    expect((await gate('codex', codexPayload('Bash', CODEX_SESSION, resumed))).allowed).toBe(true);
  });

  it('Codex: a structured McpToolCall event naming another thread proves nothing', async () => {
    const rollout = join(TRANSCRIPTS, 'codex', 'wrapped-0169.jsonl');
    const own = /"session_meta","payload":\{[^}]*?"id":"([^"]+)"/.exec(readFileSync(rollout, 'utf8'))![1]!;
    const foreign = copy('codex/wrapped-0169.jsonl', 'foreign-thread.jsonl', (text) =>
      text
        .split('\n')
        .map((line) =>
          line.includes('"McpToolCall"') || line.includes('"function_call_output"')
            ? line.replaceAll(own, 'x')
            : line,
        )
        // Without the text form of the result, only the structured event could prove it.
        .filter((line) => !line.includes('"function_call_output"'))
        .join('\n'),
    );
    expect((await gate('codex', codexPayload('Bash', own, foreign))).allowed).toBe(false);
    expect((await gate('codex', codexPayload('Bash', own, rollout))).allowed).toBe(true);
  });

  it("Gemini: another session's chat file, in either format, does not unlock this one", async () => {
    const geminiRun = (file: string, session: string) =>
      gate('gemini', { ...geminiPayload('run_shell_command', session), transcript_path: file });
    for (const name of ['success.jsonl', 'legacy-success.json']) {
      const file = join(TRANSCRIPTS, 'gemini', name);
      expect((await geminiRun(file, GEMINI_SESSION)).allowed, name).toBe(true);
      const other = await geminiRun(file, 'another-session');
      expect(other.allowed, name).toBe(false);
      expect(other.reason).toContain(`session "${GEMINI_SESSION}"`);
    }
  });

  it('a file that never says which session it is proves nothing for a named session', async () => {
    const bare = copy('codex/success-structured.jsonl', 'no-meta.jsonl', (text) =>
      text
        .split('\n')
        .filter((line) => !line.includes('"session_meta"'))
        .join('\n'),
    );
    const verdict = await gate('codex', codexPayload('Bash', CODEX_SESSION, bare));
    expect(verdict.allowed).toBe(false);
    expect(verdict.reason).toMatch(/does not say which session/);
  });
});

describe('issue 35: an empty or unusable gated-tools setting means the default list, said on stderr', () => {
  const bash = {
    session_id: 'c-1',
    transcript_path: join(REPO_ROOT, 'none.jsonl'),
    tool_name: 'Bash',
    tool_input: {},
  };
  for (const value of ['', ' ', ' , ,'])
    it(`FIRSTLIGHT_GATED_TOOLS=${JSON.stringify(value)} still gates Bash`, async () => {
      const verdict = await gate('claude', bash, { FIRSTLIGHT_GATED_TOOLS: value });
      expect(verdict.allowed).toBe(false);
      expect(verdict.reason).toContain('Bash is gated (default rule "Bash")');
      expect(verdict.stderr).toMatch(
        /FIRSTLIGHT_GATED_TOOLS names no tool.*default list.*FIRSTLIGHT_GATE_BYPASS=1/,
      );
    });

  it('globs that all fail to compile fall back to the default list too', async () => {
    // An unclosed brace: picomatch compiles it to a regex that matches nothing.
    const verdict = await gate('claude', bash, { FIRSTLIGHT_GATED_TOOLS: '{Bash' });
    expect(verdict.allowed).toBe(false);
    expect(verdict.stderr).toMatch(
      /FIRSTLIGHT_GATED_TOOLS has no glob that compiles \("\{Bash"\).*default list/,
    );
  });

  it('gate.tools: [] in firstlight.yaml means the default list, said on stderr', async () => {
    writeFileSync(join(work.dir, 'firstlight.yaml'), 'gate:\n  tools: []\n');
    const verdict = await gate('claude', bash);
    expect(verdict.allowed).toBe(false);
    expect(verdict.stderr).toMatch(/gate\.tools in firstlight\.yaml names no tool.*default list/);
  });

  it('a real list still replaces the default (and says nothing)', async () => {
    const verdict = await gate('claude', bash, { FIRSTLIGHT_GATED_TOOLS: 'Write' });
    expect(verdict).toMatchObject({ allowed: true, stderr: '' });
  });
});

describe("issue 35: the default list covers each host's own code-running tools", () => {
  const cases: [HostId, string][] = [
    // Claude Code's IDE MCP server (a Jupyter kernel in VS Code), allowed through its tool filter.
    ['claude', 'mcp__ide__executeCode'],
    // VS Code's agent tools (vscode-copilot-chat toolNames.ts).
    ['vscode', 'run_notebook_cell'],
    ['vscode', 'create_and_run_task'],
    ['vscode', 'run_task'],
    ['vscode', 'run_vs_code_task'],
    ['vscode', 'send_to_terminal'],
    ['vscode', 'runTests'],
    ['vscode', 'run_vscode_command'],
    ['vscode', 'install_extension'],
  ];
  for (const [host, tool] of cases)
    it(`${host}: ${tool} waits for bootstrap`, async () => {
      const payload =
        host === 'vscode'
          ? { sessionId: 'vs-gap', hookEventName: 'PreToolUse', cwd: '/w', tool_name: tool, tool_input: {} }
          : {
              session_id: 'cl-gap',
              transcript_path: join(REPO_ROOT, 'none.jsonl'),
              tool_name: tool,
              tool_input: {},
            };
      const verdict = await gate(host, payload);
      expect(verdict.allowed, tool).toBe(false);
      expect(verdict.reason).toContain(`${tool} is gated (default rule`);
    });
});
