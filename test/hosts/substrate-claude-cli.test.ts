/**
 * The `claude-cli` substrate against the real Claude Code (the version pinned in cache.ts),
 * pointed at the scripted model server: the argv a validator gets, what Claude Code then offers
 * the model, and what it does with calls to tools the role does not have. The invocation's MCP
 * server is the real `@modelcontextprotocol/server-memory` from npm.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bwrapSandbox,
  claudeArgs,
  createSubstrate,
  type SubstrateEvent,
  type SubstrateRequest,
} from '../../src/runtime/index.js';
import { ensureHost } from './cache.js';
import { startModelServer, toolNames, toolResults } from './model-server.js';
import {
  answerText,
  createRuntime,
  journalShape,
  MEMORY_SERVER,
  runWorkflow,
  SEED_WORKFLOW,
  scriptedUpToValidator,
  scriptFiles,
  workflowPlace,
  writeMemoryAuditor,
} from './workflow.js';

let claude: string | null = null;
let skipReason = '';
let root = '';
/** Why the runtime's read-only sessions on claude-cli cannot run here (no OS sandbox), or null. */
let sandboxProblem: string | null = null;

beforeAll(async () => {
  sandboxProblem = await bwrapSandbox('bwrap').unavailable();
  const host = await ensureHost('claude');
  if (host.ok) claude = host.bin;
  else {
    skipReason = host.reason;
    console.warn(`claude-cli substrate tests skipped: ${host.reason}`);
  }
  root = mkdtempSync(join(tmpdir(), 'firstlight-claude-substrate-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** An isolated HOME and project, quiet, pointed at the model server. */
function environment(modelUrl: string) {
  const dir = mkdtempSync(join(root, 'run-'));
  const home = join(dir, 'home');
  const project = join(dir, 'project');
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  return {
    cwd: project,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      TMPDIR: tmpdir(),
      ANTHROPIC_BASE_URL: modelUrl,
      ANTHROPIC_API_KEY: 'sk-ant-scripted',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      NO_COLOR: '1',
    },
  };
}

/** A validator: read-only memory tools; shell, edits and the memory server's writes removed. */
function validatorRequest(overrides: Partial<SubstrateRequest> = {}) {
  const events: SubstrateEvent[] = [];
  const tool = (name: string) => ({ name, description: name, inputSchema: { type: 'object' } });
  const request: SubstrateRequest = {
    sessionId: 'inv-validator',
    systemPrompt: 'You are the validator. Report findings; never change the artifact.',
    messages: [{ role: 'user', content: 'Validate the artifact.' }],
    tools: [tool('memory__read_graph'), tool('memory__search_nodes'), tool('memory__open_nodes')],
    removedTools: [
      'Bash',
      'Edit',
      'Write',
      'NotebookEdit',
      'memory__create_entities',
      'memory__delete_entities',
      'memory__add_observations',
    ],
    mcpServers: { memory: { command: process.execPath, args: [MEMORY_SERVER] } },
    async executeTool() {
      throw new Error('a CLI substrate never calls executeTool');
    },
    budget: { maxTurns: 10, wallTimeMs: 90_000 },
    signal: new AbortController().signal,
    onEvent: (event) => events.push(event),
    ...overrides,
  };
  return { request, events };
}

describe('claude-cli substrate with the real Claude Code', () => {
  it('builds a validator argv that removes its mutating tools (never only --allowedTools)', () => {
    const { request } = validatorRequest();
    const argv = claudeArgs(request, {});
    const flagValue = (flag: string) => argv[argv.indexOf(flag) + 1];
    expect(flagValue('--permission-mode')).toBe('dontAsk');
    expect(flagValue('--output-format')).toBe('stream-json');
    expect(argv).toContain('--verbose');
    expect(argv).toContain('--strict-mcp-config');
    expect(JSON.parse(flagValue('--mcp-config')!)).toEqual({
      mcpServers: { memory: { type: 'stdio', command: process.execPath, args: [MEMORY_SERVER] } },
    });
    expect(flagValue('--tools')).toBe('');
    const disallowed = argv.slice(
      argv.indexOf('--disallowedTools') + 1,
      argv.indexOf('--append-system-prompt'),
    );
    expect(disallowed).toEqual([
      'Bash',
      'Edit',
      'Write',
      'NotebookEdit',
      'mcp__memory__create_entities',
      'mcp__memory__delete_entities',
      'mcp__memory__add_observations',
    ]);
    const allowed = argv.slice(argv.indexOf('--allowedTools') + 1, argv.indexOf('--disallowedTools'));
    expect(allowed).toEqual([
      'mcp__memory__read_graph',
      'mcp__memory__search_nodes',
      'mcp__memory__open_nodes',
    ]);
  });

  it('offers the model only the role tools; calls to removed and unlisted tools are denied', async ({
    skip,
  }) => {
    if (!claude) return skip(skipReason);
    await using model = await startModelServer({
      script: [
        {
          toolCalls: [
            { id: 'toolu_bash', name: 'Bash', input: { command: 'touch pwned', description: 'x' } },
          ],
        },
        {
          toolCalls: [{ id: 'toolu_create', name: 'mcp__memory__create_entities', input: { entities: [] } }],
        },
        {
          toolCalls: [
            { id: 'toolu_delete', name: 'mcp__memory__delete_relations', input: { relations: [] } },
          ],
        },
        { toolCalls: [{ id: 'toolu_read', name: 'mcp__memory__read_graph', input: {} }] },
        { text: 'Findings: none; the artifact holds.' },
      ],
    });
    const { cwd, env } = environment(model.url);
    const substrate = createSubstrate('claude-cli', {
      env,
      cwd,
      settings: { substrates: { claude_cli: { command: claude } } },
    });
    const { request, events } = validatorRequest();
    const result = await substrate.run(request);

    expect(result, JSON.stringify(events.filter((e) => e.type === 'error'))).toMatchObject({
      status: 'completed',
      text: 'Findings: none; the artifact holds.',
    });
    // What Claude Code offered the model: the role's MCP tools, no built-in, nothing removed.
    const offered = toolNames(model.turns[0]!);
    expect(offered).toEqual(
      expect.arrayContaining([
        'mcp__memory__read_graph',
        'mcp__memory__search_nodes',
        'mcp__memory__open_nodes',
      ]),
    );
    for (const gone of [
      'Bash',
      'Edit',
      'Write',
      'Read',
      'mcp__memory__create_entities',
      'mcp__memory__add_observations',
    ])
      expect(offered).not.toContain(gone);
    // The removed tools (not offered) and the unlisted one (offered, not allowed) were all refused.
    expect(result.permissionDenials.map((d) => d.tool).sort()).toEqual([
      'Bash',
      'memory__create_entities',
      'memory__delete_relations',
    ]);
    const sent = toolResults(model.turns[4]!);
    expect(sent.find((r) => r.callId === 'toolu_read')?.text).toContain('entities');
    expect(sent.find((r) => r.callId === 'toolu_bash')?.isError).toBe(true);
    const results = events.filter((e) => e.type === 'tool_result');
    expect(results.map((e) => (e.type === 'tool_result' ? [e.name, e.denied?.reason ?? 'ran'] : []))).toEqual(
      [
        ['Bash', 'removed_tool'],
        ['memory__create_entities', 'removed_tool'],
        ['memory__delete_relations', 'permission_denied'],
        ['memory__read_graph', 'ran'],
      ],
    );
    expect(result.turns).toBe(5);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.costUsd).toBeGreaterThan(0);
    expect(events.map((e) => e.type)).toContain('usage');
  });

  it('ends with budget_exhausted when the CLI runs out of turns', async ({ skip }) => {
    if (!claude) return skip(skipReason);
    const loop = { toolCalls: [{ name: 'mcp__memory__read_graph', input: {} }] };
    await using model = await startModelServer({ script: [loop, loop, loop, loop] });
    const { cwd, env } = environment(model.url);
    const substrate = createSubstrate('claude-cli', {
      env,
      cwd,
      settings: { substrates: { claude_cli: { command: claude } } },
    });
    const { request } = validatorRequest({ budget: { maxTurns: 2 } });
    const result = await substrate.run(request);
    expect(result.status).toBe('failed');
    expect(result.failure).toMatchObject({ code: 'budget_exhausted' });
  });
});

describe('the persona runtime on claude-cli', () => {
  const settingsFor = (bin: string) => `substrates:\n  claude_cli:\n    command: ${JSON.stringify(bin)}`;

  it('runs the seed workflow with the journal the scripted run leaves', { timeout: 300_000 }, async ({
    skip,
  }) => {
    if (!claude) return skip(skipReason);
    if (sandboxProblem) return skip(`its read-only roles need the OS sandbox: ${sandboxProblem}`);
    const scripted = workflowPlace('scripted');
    const files = scriptFiles(scripted.root);
    const scriptedRuntime = createRuntime({ home: scripted.home, project: scripted.project, env: {} });
    await runWorkflow(scriptedRuntime, (i) => `scripted:${files[i]}`);

    await using model = await startModelServer({
      script: SEED_WORKFLOW.map((step) => ({ text: answerText(step) })),
    });
    const place = workflowPlace('claude-cli', settingsFor(claude));
    const { env } = environment(model.url);
    const runtime = createRuntime({ home: place.home, project: place.project, cwd: place.project, env });
    const results = await runWorkflow(runtime, () => 'claude-cli');
    expect(results.map((r) => [r.status, r.meta.detail])).toEqual(
      SEED_WORKFLOW.map(() => ['completed', undefined]),
    );
    expect(results.every((r) => r.meta.substrate === 'claude-cli')).toBe(true);
    expect(await journalShape(runtime)).toEqual(await journalShape(scriptedRuntime));
    model.assertComplete();
    // Fresh sessions: each model request holds one user message (the task and its handoff).
    for (const turn of model.turns)
      expect(
        (turn.body as { messages: unknown[] }).messages.filter(
          (m) => (m as { role: string }).role === 'user',
        ),
      ).toHaveLength(1);
    rmSync(scripted.root, { recursive: true, force: true });
    rmSync(place.root, { recursive: true, force: true });
  });

  it("journals the validator's permission denial from Claude Code", { timeout: 120_000 }, async ({
    skip,
  }) => {
    if (!claude) return skip(skipReason);
    if (sandboxProblem) return skip(`the validator needs the OS sandbox: ${sandboxProblem}`);
    const place = workflowPlace('claude-cli-denial', settingsFor(claude));
    // A validator persona with a task-relevant memory server: its three read tools, nothing else;
    // explorer, planner and builder on the scripted substrate make the artifact handoff.
    writeMemoryAuditor(place);
    const read = await scriptedUpToValidator(place);
    const validator = SEED_WORKFLOW[3]!;
    await using model = await startModelServer({
      script: [
        { toolCalls: [{ id: 'toolu_w', name: 'mcp__memory__create_entities', input: { entities: [] } }] },
        { text: answerText(validator) },
      ],
    });
    const { env } = environment(model.url);
    const runtime = createRuntime({ home: place.home, project: place.project, cwd: place.project, env });
    const result = await runtime.invoke({
      persona: 'memory-auditor',
      role: 'validator',
      surface: 'audit',
      engagement: 'agent',
      task: validator.task,
      handoffs: [read],
      substrate: 'claude-cli',
    });
    expect(result.status, result.meta.detail).toBe('completed');
    expect([...result.meta.tools].sort()).toEqual([
      'memory__open_nodes',
      'memory__read_graph',
      'memory__search_nodes',
    ]);
    const offered = toolNames(model.turns[0]!);
    expect(offered).toContain('mcp__memory__read_graph');
    expect(offered).not.toContain('mcp__memory__create_entities');
    expect(offered).not.toContain('Bash');
    expect(result.meta.denials).toEqual([
      { tool: 'memory__create_entities', reason: 'substrate_permission_denial' },
    ]);
    const denial = (await runtime.journal()).find((e) => e.kind === 'denial');
    expect(denial?.title).toBe('denial: memory__create_entities refused to validator by claude-cli');
    expect(denial?.content).toContain('substrate_permission_denial');
    rmSync(place.root, { recursive: true, force: true });
  });
});
