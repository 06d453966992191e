/**
 * The API substrates (`anthropic`, `openai-compatible` over Chat Completions and the Responses
 * API) against the scripted model server on loopback: the real SDK / fetch client, the real
 * wire format, real retries; only the model is scripted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSubstrate, type SubstrateEvent, type SubstrateRequest } from '../../../src/runtime/index.js';
import {
  type ModelServer,
  type ScriptStep,
  startModelServer,
  toolNames,
  toolResults,
} from '../../hosts/model-server.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const FAST_RETRY = { max_attempts: 4, base_delay_ms: 5, max_delay_ms: 20 };

const READ_TOOL = {
  name: 'fs__read_file',
  description: 'Read a file',
  inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};
const SEARCH_TOOL = {
  name: 'fs__search',
  description: 'Search files',
  inputSchema: { type: 'object', properties: { q: { type: 'string' } } },
};

interface Case {
  label: string;
  spec: string;
  wire: 'anthropic' | 'chat' | 'responses';
  settings: (url: string) => Record<string, unknown>;
}

const CASES: Case[] = [
  {
    label: 'anthropic',
    spec: 'anthropic:claude-scripted',
    wire: 'anthropic',
    settings: (url) => ({ anthropic: { base_url: url }, retry: FAST_RETRY }),
  },
  {
    label: 'openai-compatible (chat)',
    spec: 'openai-compatible:gpt-scripted',
    wire: 'chat',
    settings: (url) => ({ openai_compatible: { base_url: `${url}/v1` }, retry: FAST_RETRY }),
  },
  {
    label: 'openai-compatible (responses)',
    spec: 'openai-compatible:gpt-scripted',
    wire: 'responses',
    settings: (url) => ({
      openai_compatible: { base_url: `${url}/v1`, api: 'responses' },
      retry: FAST_RETRY,
    }),
  },
];

function makeRequest(
  overrides: Partial<SubstrateRequest> = {},
): SubstrateRequest & { events: SubstrateEvent[]; executed: string[] } {
  const events: SubstrateEvent[] = [];
  const executed: string[] = [];
  return {
    sessionId: 'inv-test',
    systemPrompt: 'You are a careful validator.',
    messages: [{ role: 'user', content: 'Check the artifact.' }],
    tools: [READ_TOOL, SEARCH_TOOL],
    removedTools: [],
    mcpServers: {},
    budget: { maxTurns: 8 },
    signal: new AbortController().signal,
    async executeTool(call) {
      executed.push(call.name);
      return { output: `contents of ${JSON.stringify(call.input)}`, isError: false };
    },
    onEvent: (event) => events.push(event),
    events,
    executed,
    ...overrides,
  };
}

async function substrateFor(c: Case, script: ScriptStep[]) {
  server = await startModelServer({ script });
  const env = { ANTHROPIC_API_KEY: 'sk-ant-scripted', OPENAI_API_KEY: 'sk-scripted' };
  return createSubstrate(c.spec, { env, settings: { substrates: c.settings(server.url) } });
}

describe.each(CASES)('$label substrate against the scripted model server', (c) => {
  it('runs a tool-call round trip through executeTool and returns the final answer', async () => {
    const substrate = await substrateFor(c, [
      { text: 'Reading it.', toolCalls: [{ id: 'call_1', name: 'fs__read_file', input: { path: 'a.md' } }] },
      { text: 'The artifact holds.' },
    ]);
    const request = makeRequest();
    const result = await substrate.run(request);
    expect(result).toMatchObject({ status: 'completed', text: 'The artifact holds.', turns: 2 });
    expect(request.executed).toEqual(['fs__read_file']);
    expect(server!.turns.every((t) => t.wire === c.wire && t.stream)).toBe(true);
    const sent = toolResults(server!.turns[1]!);
    expect(sent).toEqual([
      expect.objectContaining({
        callId: 'call_1',
        name: 'fs__read_file',
        text: 'contents of {"path":"a.md"}',
      }),
    ]);
    expect(request.events.map((e) => e.type)).toEqual([
      'text',
      'usage',
      'tool_call',
      'tool_result',
      'text',
      'usage',
    ]);
    expect(result.usage.inputTokens).toBe(20);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.substrateMs).toBeGreaterThanOrEqual(0);
    server!.assertComplete();
  });

  it('streams an answer as text events', async () => {
    const answer = 'A streamed answer, ünïcödé and 日本語 intact.';
    const substrate = await substrateFor(c, [{ text: answer }]);
    const request = makeRequest();
    const result = await substrate.run(request);
    expect(result.text).toBe(answer);
    const texts = request.events.flatMap((e) => (e.type === 'text' ? [e.text] : []));
    expect(texts.join('')).toBe(answer);
    expect(server!.turns[0]!.stream).toBe(true);
  });

  it('retries a 529 and then succeeds, reporting the retry as an error event', async () => {
    const substrate = await substrateFor(c, [{ status: 529 }, { text: 'after the overload' }]);
    const request = makeRequest();
    const result = await substrate.run(request);
    expect(result).toMatchObject({ status: 'completed', text: 'after the overload', turns: 1 });
    expect(server!.turns).toHaveLength(2);
    const errors = request.events.filter((e) => e.type === 'error');
    expect(errors).toEqual([expect.objectContaining({ retrying: true })]);
  });

  it('retries an overload in the middle of a stream', async () => {
    const substrate = await substrateFor(c, [
      { text: 'half an answ', streamError: {} },
      { text: 'the whole answer' },
    ]);
    const request = makeRequest();
    const result = await substrate.run(request);
    expect(result).toMatchObject({ status: 'completed', text: 'the whole answer' });
    expect(server!.turns).toHaveLength(2);
    expect(request.events.filter((e) => e.type === 'error')).toEqual([
      expect.objectContaining({ retrying: true, message: expect.stringMatching(/overload/i) }),
    ]);
  });

  it('gives up after the bounded attempts with a substrate_error', async () => {
    const substrate = await substrateFor(c, [
      { status: 503 },
      { status: 503 },
      { status: 503 },
      { status: 503 },
    ]);
    const result = await substrate.run(makeRequest());
    expect(result.status).toBe('failed');
    expect(result.failure).toMatchObject({
      code: 'substrate_error',
      message: expect.stringContaining('503'),
    });
    expect(server!.turns).toHaveLength(4);
  });

  it('ends with budget_exhausted when the turns run out, and on a token budget', async () => {
    const loop = { toolCalls: [{ name: 'fs__search', input: { q: 'x' } }] };
    let substrate = await substrateFor(c, [loop, loop, loop]);
    let result = await substrate.run(makeRequest({ budget: { maxTurns: 2 } }));
    expect(result.status).toBe('failed');
    expect(result.failure).toMatchObject({ code: 'budget_exhausted', message: 'all 2 turn(s) used' });
    expect(server!.turns).toHaveLength(2);
    await server!.close();

    substrate = await substrateFor(c, [loop, loop, loop]);
    result = await substrate.run(makeRequest({ budget: { maxTurns: 10, maxTokens: 15 } }));
    expect(result.failure).toMatchObject({ code: 'budget_exhausted' });
    expect(result.failure!.message).toMatch(/token budget/);
    expect(server!.turns).toHaveLength(1);
  });

  it('ends with budget_exhausted when the wall time runs out mid-call', async () => {
    const substrate = await substrateFor(c, [{ text: 'too slow', delayMs: 30_000 }]);
    const started = Date.now();
    const result = await substrate.run(makeRequest({ budget: { maxTurns: 4, wallTimeMs: 200 } }));
    expect(result.failure).toMatchObject({
      code: 'budget_exhausted',
      message: 'wall time of 200 ms used up',
    });
    // Far below the answer's 30 s, and far above what a loaded machine adds to 200 ms.
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("sends a validator's request with only its read-only tools (asserted on the wire)", async () => {
    const substrate = await substrateFor(c, [{ text: 'findings: none' }]);
    await substrate.run(
      makeRequest({ tools: [READ_TOOL, SEARCH_TOOL], removedTools: ['fs__write_file', 'Bash', 'Edit'] }),
    );
    const offered = toolNames(server!.turns[0]!);
    expect(offered.sort()).toEqual(['fs__read_file', 'fs__search']);
    expect(offered).not.toContain('fs__write_file');
  });

  it('passes a denied call back to the model as an error result without running it', async () => {
    const substrate = await substrateFor(c, [
      { toolCalls: [{ id: 'call_w', name: 'fs__write_file', input: { path: 'x' } }] },
      { text: 'understood' },
    ]);
    const request = makeRequest({
      async executeTool() {
        return {
          output: 'fs__write_file is not in the role',
          isError: true,
          denied: { reason: 'not_in_role' },
        };
      },
    });
    const result = await substrate.run(request);
    expect(result.status).toBe('completed');
    const sent = toolResults(server!.turns[1]!)[0]!;
    expect(sent.text).toContain('fs__write_file is not in the role');
    if (c.wire === 'anthropic') expect(sent.isError).toBe(true);
    expect(request.events.find((e) => e.type === 'tool_result')).toMatchObject({
      denied: { reason: 'not_in_role' },
    });
  });
});

describe('API substrates without a key', () => {
  it('fail as substrate_unavailable naming the variable, and never call the model', async () => {
    server = await startModelServer();
    const anthropic = createSubstrate('anthropic', {
      env: {},
      settings: { substrates: { anthropic: { base_url: server.url } } },
    });
    const result = await anthropic.run(makeRequest());
    expect(result).toMatchObject({ status: 'failed', failure: { code: 'substrate_unavailable' } });
    expect(result.failure!.message).toContain('ANTHROPIC_API_KEY');
    const openai = createSubstrate('openai-compatible', { env: {}, settings: {} });
    expect((await openai.run(makeRequest())).failure!.message).toContain('OPENAI_API_KEY');
    const named = createSubstrate('anthropic', {
      env: {},
      settings: { substrates: { anthropic: { api_key_env: 'TEAM_CLAUDE_KEY' } } },
    });
    expect((await named.run(makeRequest())).failure!.message).toContain('TEAM_CLAUDE_KEY');
    expect(server.all).toHaveLength(0);
  });

  it('lets a local OpenAI-compatible server run without a key', async () => {
    server = await startModelServer({ script: [{ text: 'local model here' }] });
    const local = createSubstrate('openai-compatible:llama', {
      env: {},
      settings: { substrates: { openai_compatible: { base_url: `${server.url}/v1` } } },
    });
    const result = await local.run(makeRequest());
    expect(result.text).toBe('local model here');
    expect(server.turns[0]!.headers.authorization).toBeUndefined();
  });
});
