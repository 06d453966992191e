/**
 * The gate holds every tool that can run code, under each host's own spelling: the REPL's
 * `execute`, `install_capability` and `restore_state` wait for bootstrap_session beside the
 * shells and editors; the mind's own tools never wait. The Claude Code, Codex and Gemini CLI
 * payloads are the real hosts' own (test/fixtures/hosts/<host>/pre-tool-use-repl-execute.json,
 * captured by test/hosts/repl-gate.test.ts); Copilot CLI's, VS Code's and Cursor's follow their
 * documented naming. A deny names the rule that matched and where it was set.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type HostId, runHook } from '../../../src/host/index.js';
import { writeBootstrapRecord } from '../../../src/mind/bootstrap-record/index.js';
import { REPO_ROOT, tempDir } from '../../helpers/index.js';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'hosts');

let work: { dir: string; dispose: () => void };
beforeAll(() => {
  work = tempDir('firstlight-gate-repl-');
});
afterAll(() => work.dispose());
beforeEach(() => {
  // A home (so cautions and the event store run as in a real install), no bootstrap yet.
  writeFileSync(join(work.dir, 'firstlight.yaml'), '');
  rmSync(join(work.dir, 'cache'), { recursive: true, force: true });
});

/** The decision and reason from any host's answer (empty stdout: allowed). */
function verdict(stdout: string): { allowed: boolean; reason: string } {
  if (stdout === '') return { allowed: true, reason: '' };
  type Answer = Record<string, string | undefined>;
  const out = JSON.parse(stdout) as Answer & { hookSpecificOutput?: Answer };
  const inner = out.hookSpecificOutput ?? {};
  const decision = inner.permissionDecision ?? out.permissionDecision ?? out.decision ?? out.permission;
  const reason =
    inner.permissionDecisionReason ?? out.permissionDecisionReason ?? out.reason ?? out.agent_message ?? '';
  return { allowed: decision !== 'deny', reason };
}

async function gate(host: HostId, payload: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) {
  const out = await runHook({
    event: 'pre-tool-use',
    host,
    home: work.dir,
    env,
    cwd: work.dir,
    stdin: JSON.stringify(payload),
  });
  return verdict(out.stdout);
}

const real = (host: string) =>
  JSON.parse(readFileSync(join(FIXTURES, host, 'pre-tool-use-repl-execute.json'), 'utf8')) as Record<
    string,
    unknown
  >;

/** A host's PreToolUse payload calling `tool` (the real payload where the host ran here). */
const HOSTS: {
  host: HostId;
  name: string;
  spell: (tool: string) => string;
  payload: (name: string) => Record<string, unknown>;
  session: string;
}[] = [
  {
    host: 'claude',
    name: 'Claude Code (real payload)',
    spell: (t) => `mcp__firstlight-repl__${t}`,
    payload: (name) => ({ ...real('claude'), tool_name: name }),
    session: real('claude').session_id as string,
  },
  {
    host: 'codex',
    name: 'Codex CLI (real payload)',
    spell: (t) => `mcp__firstlight_repl__${t}`,
    payload: (name) => ({ ...real('codex'), tool_name: name }),
    session: real('codex').session_id as string,
  },
  {
    host: 'gemini',
    name: 'Gemini CLI (real payload)',
    spell: (t) => `mcp_firstlight-repl_${t}`,
    // Gemini CLI names the tool's server beside it (mcp_context), and that decides.
    payload: (name) => {
      const [, server, tool] = /^mcp_(firstlight(?:-repl)?)_(.*)$/.exec(name)!;
      const context = { ...(real('gemini').mcp_context as object), server_name: server, tool_name: tool };
      return { ...real('gemini'), tool_name: name, mcp_context: context };
    },
    session: real('gemini').session_id as string,
  },
  {
    host: 'copilot',
    name: 'Copilot CLI',
    spell: (t) => `firstlight-repl-${t}`,
    payload: (name) => ({ sessionId: 'cop-1', cwd: '/work/p', toolName: name, toolArgs: '{"code":"1"}' }),
    session: 'cop-1',
  },
  {
    host: 'vscode',
    name: 'VS Code',
    spell: (t) => `mcp_firstlight-re_${t}`,
    payload: (name) => ({
      sessionId: 'vs-1',
      hookEventName: 'PreToolUse',
      cwd: '/work/p',
      tool_name: name,
      tool_input: { code: '1' },
    }),
    session: 'vs-1',
  },
  {
    host: 'cursor',
    name: 'Cursor',
    spell: (t) => `MCP:${t}`,
    payload: (name) => ({
      conversation_id: 'cur-1',
      hook_event_name: 'preToolUse',
      cursor_version: '1.7',
      workspace_roots: ['/work/p'],
      tool_name: name,
      tool_input: { code: '1' },
    }),
    session: 'cur-1',
  },
];

const CODE_TOOLS = ['execute', 'install_capability', 'restore_state'];

describe('the REPL tools that run code are gated on every host', () => {
  for (const h of HOSTS) {
    it(`${h.name}: denied before bootstrap_session, naming the default rule; allowed after`, async () => {
      for (const tool of CODE_TOOLS) {
        const name = h.spell(tool);
        const before = await gate(h.host, h.payload(name));
        expect(before.allowed, `${name} ran before bootstrap`).toBe(false);
        expect(before.reason).toContain(`${name} is gated (default rule "`);
        expect(before.reason).toMatch(/bootstrap_session/);
      }
      await writeBootstrapRecord(work.dir, h.session, { now: new Date(), via: 'bootstrap_session' });
      for (const tool of CODE_TOOLS)
        expect((await gate(h.host, h.payload(h.spell(tool)))).allowed).toBe(true);
    });
  }

  it("leaves the REPL's other tools and the mind's own tools ungated", async () => {
    for (const h of HOSTS.slice(0, 3)) {
      for (const tool of ['state', 'describe_capability', 'save_state'])
        expect((await gate(h.host, h.payload(h.spell(tool)))).allowed, h.spell(tool)).toBe(true);
    }
    for (const [host, own] of [
      ['claude', 'mcp__firstlight__recall'],
      ['codex', 'mcp__firstlight__remember'],
      ['gemini', 'mcp_firstlight_bootstrap_session'],
      ['copilot', 'firstlight-observe'],
    ] as const) {
      const h = HOSTS.find((x) => x.host === host)!;
      expect((await gate(host, h.payload(own), { FIRSTLIGHT_GATED_TOOLS: '*' })).allowed, own).toBe(true);
    }
  });
});

describe('the deny names the rule that matched and where it was set', () => {
  const claude = HOSTS[0]!;
  it('gate.add gates more beside the default list', async () => {
    writeFileSync(join(work.dir, 'firstlight.yaml'), 'gate:\n  add: ["mcp__github__create_*", "Bash"]\n');
    const github = await gate('claude', claude.payload('mcp__github__create_issue'));
    expect(github.allowed).toBe(false);
    expect(github.reason).toContain(
      'mcp__github__create_issue is gated (rule from gate.add in firstlight.yaml "mcp__github__create_*")',
    );
    // The defaults still stand (a glob named in both counts as the default's).
    expect((await gate('claude', claude.payload('Bash'))).reason).toContain(
      'Bash is gated (default rule "Bash")',
    );
    expect((await gate('claude', claude.payload('mcp__firstlight-repl__execute'))).allowed).toBe(false);
    expect((await gate('claude', claude.payload('mcp__github__list_issues'))).allowed).toBe(true);
  });

  it('gate.tools replaces the default list; gate.add extends it', async () => {
    writeFileSync(join(work.dir, 'firstlight.yaml'), 'gate:\n  tools: ["Write"]\n  add: ["deploy_*"]\n');
    expect((await gate('claude', claude.payload('Write'))).reason).toContain(
      'Write is gated (rule from gate.tools in firstlight.yaml "Write")',
    );
    expect((await gate('claude', claude.payload('deploy_web'))).reason).toContain(
      'deploy_web is gated (rule from gate.add in firstlight.yaml "deploy_*")',
    );
    expect((await gate('claude', claude.payload('Bash'))).allowed).toBe(true);
  });

  it('FIRSTLIGHT_GATED_TOOLS is named as the source of its rules', async () => {
    const denied = await gate('codex', HOSTS[1]!.payload('mcp__db__query'), {
      FIRSTLIGHT_GATED_TOOLS: 'mcp__db__*',
    });
    expect(denied.reason).toContain(
      'mcp__db__query is gated (rule from FIRSTLIGHT_GATED_TOOLS "mcp__db__*")',
    );
  });

  it('the record gate (Copilot CLI) names the rule too', async () => {
    const copilot = HOSTS.find((h) => h.host === 'copilot')!;
    expect((await gate('copilot', copilot.payload('powershell'))).reason).toContain(
      'powershell is gated (default rule "powershell")',
    );
  });
});
