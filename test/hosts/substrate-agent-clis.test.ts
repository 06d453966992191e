/**
 * The `gemini-cli` and `codex-cli` substrates against the real CLIs (the versions pinned in cache.ts),
 * pointed at the scripted model server, with the real `@modelcontextprotocol/server-memory` as
 * the invocation's MCP server: what a validator is offered and what happens to a call to a
 * removed tool.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bwrapSandbox,
  createSubstrate,
  type SubstrateEvent,
  type SubstrateSandboxRequest,
} from '../../src/runtime/index.js';
import { ensureHost } from './cache.js';
import { startModelServer, toolNames, toolResults } from './model-server.js';
import { MEMORY_SERVER } from './workflow.js';

const tool = (name: string) => ({ name, description: name, inputSchema: { type: 'object' } });

let gemini: string | null = null;
let codex: string | null = null;
let skipReason = '';
let codexSkipReason = '';
let root = '';
let sandboxProblem: string | null = null;
beforeAll(async () => {
  sandboxProblem = await bwrapSandbox('bwrap').unavailable();
  const host = await ensureHost('gemini');
  if (host.ok) gemini = host.bin;
  else {
    skipReason = host.reason;
    console.warn(`gemini-cli substrate tests skipped: ${host.reason}`);
  }
  const codexHost = await ensureHost('codex');
  if (codexHost.ok) codex = codexHost.bin;
  else {
    codexSkipReason = codexHost.reason;
    console.warn(`codex-cli substrate tests skipped: ${codexHost.reason}`);
  }
  root = mkdtempSync(join(tmpdir(), 'firstlight-agent-cli-substrates-'));
});

const validatorRequest = (events: SubstrateEvent[], sandbox?: SubstrateSandboxRequest) => ({
  sessionId: 'inv-validator',
  systemPrompt: 'You are the validator.',
  messages: [{ role: 'user' as const, content: 'Validate the artifact.' }],
  tools: [tool('memory__read_graph'), tool('memory__search_nodes'), tool('memory__open_nodes')],
  // As the runtime passes them: the built-ins and the server tools outside the role.
  removedTools: [
    'Bash',
    'Edit',
    'Write',
    'memory__create_entities',
    'memory__create_relations',
    'memory__add_observations',
    'memory__delete_entities',
    'memory__delete_observations',
    'memory__delete_relations',
  ],
  mcpServers: { memory: { command: process.execPath, args: [MEMORY_SERVER] } },
  async executeTool(): Promise<never> {
    throw new Error('a CLI substrate never calls executeTool');
  },
  budget: { maxTurns: 10, wallTimeMs: 100_000 },
  ...(sandbox ? { sandbox } : {}),
  signal: new AbortController().signal,
  onEvent: (event: SubstrateEvent) => events.push(event),
});

/**
 * The OS sandbox the runtime runs a validator in, where bubblewrap can start here; without it,
 * the CLIs run as an opted-out profile's would (Codex then relies on its own sandbox).
 */
function sandboxFor(project: string): SubstrateSandboxRequest | undefined {
  if (sandboxProblem) return undefined;
  return {
    projectDir: project,
    scratchDir: join(project, '.firstlight', 'scratch', 'inv-validator'),
    writable: [],
  };
}

/** Runs the validator request on an agent-CLI substrate: it must complete with the scripted findings. */
async function validateOn(
  kind: 'gemini-cli' | 'codex-cli',
  command: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
) {
  const key = kind === 'gemini-cli' ? 'gemini_cli' : 'codex_cli';
  const substrate = createSubstrate(kind, { env, cwd, settings: { substrates: { [key]: { command } } } });
  const events: SubstrateEvent[] = [];
  const result = await substrate.run(validatorRequest(events, sandboxFor(cwd)));
  expect(result, JSON.stringify(events.filter((e) => e.type === 'error'))).toMatchObject({
    status: 'completed',
    text: 'Findings: none.',
  });
  return { result, events };
}
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('gemini-cli substrate with the real Gemini CLI', () => {
  it('offers a validator no removed tool and reports a call to one as a denial', {
    timeout: 120_000,
  }, async ({ skip }) => {
    if (!gemini) return skip(skipReason);
    await using model = await startModelServer({
      script: [
        { toolCalls: [{ name: 'run_shell_command', input: { command: 'touch pwned', description: 'x' } }] },
        { toolCalls: [{ name: 'mcp_memory_create_entities', input: { entities: [] } }] },
        { toolCalls: [{ id: 'read', name: 'mcp_memory_read_graph', input: {} }] },
        { text: 'Findings: none.' },
      ],
    });
    // The user's one-time setup: an API key login and a trusted project folder.
    const home = join(root, 'home');
    const project = join(root, 'project');
    mkdirSync(join(home, '.gemini'), { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(
      join(home, '.gemini', 'settings.json'),
      JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
      }),
    );
    writeFileSync(
      join(home, '.gemini', 'trustedFolders.json'),
      JSON.stringify({ [project]: 'TRUST_FOLDER' }),
    );
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      TMPDIR: tmpdir(),
      GOOGLE_GEMINI_BASE_URL: model.url,
      GEMINI_API_KEY: 'scripted',
      GEMINI_TELEMETRY_ENABLED: 'false',
      NO_COLOR: '1',
    };
    const { result } = await validateOn('gemini-cli', gemini!, env, project);
    const offered = toolNames(model.turns[0]!);
    expect(offered).toEqual(
      expect.arrayContaining(['mcp_memory_read_graph', 'mcp_memory_search_nodes', 'mcp_memory_open_nodes']),
    );
    for (const gone of [
      'run_shell_command',
      'write_file',
      'replace',
      'mcp_memory_create_entities',
      'mcp_memory_delete_relations',
    ])
      expect(offered).not.toContain(gone);
    expect(result.permissionDenials.map((d) => d.tool)).toEqual(['Bash', 'memory__create_entities']);
    expect(toolResults(model.turns[3]!).find((r) => r.callId === 'read')?.text).toContain('entities');
    expect(result.usage.inputTokens).toBeGreaterThan(0);
  });
});

describe('codex-cli substrate with the real Codex CLI', () => {
  it('runs a validator in a read-only sandbox with only its MCP tools enabled', { timeout: 120_000 }, async ({
    skip,
  }) => {
    if (!codex) return skip(codexSkipReason);
    await using model = await startModelServer({
      script: [
        { toolCalls: [{ id: 'sh', name: 'exec_command', input: { cmd: 'touch pwned && echo wrote' } }] },
        // Codex offers a server's tools as one namespace tool (`mcp__memory`) holding plain names.
        (request) => ({
          toolCalls: [
            toolNames(request).includes('mcp__memory')
              ? { id: 'read', name: 'read_graph', namespace: 'mcp__memory', input: {} }
              : { id: 'read', name: 'mcp__memory__read_graph', input: {} },
          ],
        }),
        { text: 'Findings: none.' },
      ],
    });
    // The user's own Codex setup: a model provider (here the scripted server) and its key.
    const home = join(root, 'codex-home');
    const project = join(root, 'codex-project');
    mkdirSync(join(home, '.codex'), { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(
      join(home, '.codex', 'config.toml'),
      [
        'model = "gpt-5"',
        'model_provider = "scripted"',
        'check_for_update_on_startup = false',
        '[model_providers.scripted]',
        'name = "scripted"',
        `base_url = "${model.url}/v1"`,
        'wire_api = "responses"',
        'env_key = "SCRIPTED_MODEL_KEY"',
        '',
      ].join('\n'),
    );
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      CODEX_HOME: join(home, '.codex'),
      TMPDIR: tmpdir(),
      SCRIPTED_MODEL_KEY: 'scripted',
      NO_COLOR: '1',
    };
    const { events, result } = await validateOn('codex-cli', codex!, env, project);
    const offered = toolNames(model.turns[0]!);
    expect(offered).toEqual(expect.arrayContaining(['mcp__memory__read_graph', 'mcp__memory__search_nodes']));
    expect(offered).not.toContain('mcp__memory__create_entities');
    // The shell stays offered (Codex cannot remove it), but its write is refused by the sandbox.
    expect(offered).toContain('exec_command');
    expect(existsSync(join(project, 'pwned'))).toBe(false);
    // What Codex sent the model back for the shell call: the sandbox's refusal.
    const shellOutput = toolResults(model.turns[1]!).find((r) => r.callId === 'sh')?.text;
    expect(shellOutput, JSON.stringify(events)).toContain('Read-only file system');
    // In the OS sandbox, Codex's own is off and its --json stream carries the command, so the
    // refusal is a denial; Codex's own sandbox (no bubblewrap here) reports none.
    if (!sandboxProblem)
      expect(result.permissionDenials).toEqual([
        {
          tool: 'shell',
          input: { command: expect.stringContaining('touch pwned') },
          reason: 'sandbox_write_denied',
        },
      ]);
    const read = events.find((e) => e.type === 'tool_result' && e.name === 'memory__read_graph');
    expect(read).toMatchObject({ isError: false, output: expect.stringContaining('entities') });
  });
});
