/**
 * The `command` substrate with a real child process, and the argv the agent CLIs get for a
 * validator (codex-cli, gemini-cli; claude-cli runs for real in test/hosts/).
 */
import { describe, expect, it } from 'vitest';
import {
  codexArgs,
  createSubstrate,
  geminiArgs,
  geminiPolicy,
  type SubstrateEvent,
  type SubstrateRequest,
} from '../../../src/runtime/index.js';

function request(overrides: Partial<SubstrateRequest> = {}) {
  const events: SubstrateEvent[] = [];
  const req: SubstrateRequest = {
    sessionId: 'inv-cli',
    systemPrompt: 'SYSTEM: be brief.',
    messages: [{ role: 'user', content: 'Ünïcödé task 日本語' }],
    tools: [],
    removedTools: [],
    mcpServers: {},
    async executeTool() {
      throw new Error('never called');
    },
    budget: { maxTurns: 4 },
    signal: new AbortController().signal,
    onEvent: (e) => events.push(e),
    ...overrides,
  };
  return { req, events };
}

const node = process.execPath;
/** A CLI that answers with what it read on stdin, upper-cased. */
const ECHO = [
  '-e',
  "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write(s.toUpperCase()+'\\n'))",
];

describe('command substrate', () => {
  it('sends the system prompt and task on stdin and answers with stdout', async () => {
    const substrate = createSubstrate('command', {
      env: process.env,
      settings: { substrates: { command: { argv: [node, ...ECHO] } } },
    });
    const { req, events } = request();
    const result = await substrate.run(req);
    expect(result).toMatchObject({
      status: 'completed',
      text: 'SYSTEM: BE BRIEF.\n\nÜNÏCÖDÉ TASK 日本語',
      turns: 1,
    });
    expect(events.filter((e) => e.type === 'text').length).toBeGreaterThan(0);
  });

  it('offers no tools and says so when the role has some', async () => {
    const substrate = createSubstrate('command', {
      settings: { substrates: { command: { argv: [node, ...ECHO] } } },
    });
    expect(substrate.enforcement).toEqual({ toolList: true, execution: true });
    const { req, events } = request({
      tools: [{ name: 'fs__read_file', description: 'read', inputSchema: {} }],
    });
    const result = await substrate.run(req);
    expect(result.status).toBe('completed');
    expect(events[0]).toMatchObject({ type: 'error', code: 'tools_not_offered', retrying: false });
  });

  it('takes the command from the spec, and fails by name on a non-zero exit or a missing program', async () => {
    const failing = createSubstrate(`command:${node} -e process.exit(3)`);
    const failed = await failing.run(request().req);
    expect(failed.failure).toMatchObject({
      code: 'substrate_error',
      message: expect.stringContaining('exit 3'),
    });
    const missing = createSubstrate('command:/nonexistent/llm-cli');
    const none = await missing.run(request().req);
    expect(none.failure).toMatchObject({ code: 'substrate_unavailable' });
    expect(none.failure!.message).toContain('/nonexistent/llm-cli');
  });

  it('ends with budget_exhausted when the wall time runs out', async () => {
    const slow = createSubstrate(`command:${node} -e setTimeout(()=>{},60000)`);
    const started = Date.now();
    const result = await slow.run(request({ budget: { maxTurns: 1, wallTimeMs: 300 } }).req);
    expect(result.failure).toMatchObject({ code: 'budget_exhausted' });
    // Far below the command's minute, and far above what a loaded machine adds to 300 ms.
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});

describe('agent CLI substrates', () => {
  const validator = request({
    tools: [{ name: 'memory__read_graph', description: 'read', inputSchema: {} }],
    removedTools: ['run_shell_command', 'write_file', 'memory__create_entities'],
    mcpServers: { memory: { command: 'node', args: ['server.js'] } },
  }).req;

  it('a missing CLI is substrate_unavailable naming the setting', async () => {
    for (const kind of ['claude-cli', 'codex-cli', 'gemini-cli']) {
      const key = kind.replace('-', '_');
      const substrate = createSubstrate(kind, {
        settings: { substrates: { [key]: { command: '/nonexistent/agent' } } },
      });
      const result = await substrate.run(request().req);
      expect(result.failure, kind).toMatchObject({ code: 'substrate_unavailable' });
      expect(result.failure!.message).toContain(`substrates.${key}.command`);
    }
  });

  it('codex: read-only sandbox, no approvals, only the role tools of each MCP server', () => {
    const argv = codexArgs(validator, { model: 'gpt-5' });
    expect(argv.slice(0, 3)).toEqual(['exec', '--json', '--skip-git-repo-check']);
    expect(argv[argv.indexOf('--sandbox') + 1]).toBe('read-only');
    expect(argv).toContain('approval_policy="never"');
    expect(argv).toContain('mcp_servers.memory.enabled_tools=["read_graph"]');
    expect(argv).toContain('developer_instructions="SYSTEM: be brief."');
    expect(argv.at(-1)).toBe('-');
  });

  it('gemini: a policy that allows the role tools and denies the removed ones', () => {
    const policy = geminiPolicy(validator);
    expect(policy).toContain('toolName = "run_shell_command"\ndecision = "deny"');
    expect(policy).toContain('toolName = "mcp_memory_create_entities"\ndecision = "deny"');
    expect(policy).toContain('toolName = "mcp_memory_read_graph"\ndecision = "allow"');
    const argv = geminiArgs(validator, {}, '/tmp/policy.toml');
    expect(argv).toEqual(
      expect.arrayContaining(['--approval-mode', 'default', '--policy', '/tmp/policy.toml']),
    );
    expect(argv[argv.indexOf('--allowed-mcp-server-names') + 1]).toBe('memory');
  });

  it('an unknown kind is a usage error listing the kinds', () => {
    expect(() => createSubstrate('gpt-cli')).toThrow(/unknown substrate "gpt-cli"/);
  });
});
