import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/core/index.js';
import {
  resolveSubstrate,
  ScriptError,
  ScriptedSubstrate,
  type SubstrateRequest,
  type ToolCall,
} from '../../../src/runtime/index.js';

function request(overrides: Partial<SubstrateRequest> = {}): SubstrateRequest & { executed: ToolCall[] } {
  const executed: ToolCall[] = [];
  return {
    sessionId: 's1',
    systemPrompt: 'you are a test',
    messages: [{ role: 'user', content: 'go' }],
    tools: [{ name: 'kb__search', description: 'search', inputSchema: { type: 'object' } }],
    removedTools: ['Bash'],
    mcpServers: {},
    executeTool: async (call) => {
      executed.push(call);
      return { output: `ran ${call.name}`, isError: false };
    },
    budget: { maxTurns: 5 },
    signal: new AbortController().signal,
    onEvent: () => {},
    executed,
    ...overrides,
  };
}

describe('ScriptedSubstrate', () => {
  it('plays steps, runs tool calls through executeTool, and ends with the text plus output as fenced JSON', async () => {
    const substrate = new ScriptedSubstrate({
      steps: [
        { text: 'looking', tool_calls: [{ name: 'kb__search', input: { q: 'x' } }] },
        { text: 'done', output: { handoff: { a: 1 } } },
      ],
    });
    const req = request();
    const result = await substrate.run(req);
    expect(result.status).toBe('completed');
    expect(result.turns).toBe(2);
    expect(result.text).toBe('done\n\n```json\n{\n  "handoff": {\n    "a": 1\n  }\n}\n```');
    expect(req.executed).toEqual([{ id: 'call_0_0_0', name: 'kb__search', input: { q: 'x' } }]);
    expect(substrate.calls[0]!.tools.map((t) => t.name)).toEqual(['kb__search']);
    expect(substrate.calls[0]!.removedTools).toEqual(['Bash']);
    substrate.assertComplete();
  });

  it('plays the run whose index is the number of assistant messages so far', async () => {
    const substrate = new ScriptedSubstrate({
      runs: [{ steps: [{ text: 'first' }] }, { steps: [{ text: 'second' }] }],
    });
    expect((await substrate.run(request())).text).toBe('first');
    expect(() => substrate.assertComplete()).toThrow(ScriptError);
    const again = request({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: 'first' },
        { role: 'user', content: 'shorter' },
      ],
    });
    expect((await substrate.run(again)).text).toBe('second');
    substrate.assertComplete();
    const third = await substrate.run(
      request({ messages: [...again.messages, { role: 'assistant', content: 'x' }] }),
    );
    expect(third.failure?.code).toBe('substrate_error');
  });

  it('counts delays as substrate time, stops at the turn budget, and honours abort', async () => {
    const slow = new ScriptedSubstrate({ steps: [{ delay_ms: 40, text: 'ok' }] });
    expect((await slow.run(request())).substrateMs).toBeGreaterThanOrEqual(35);
    const long = new ScriptedSubstrate({
      steps: [
        { tool_calls: [{ name: 'kb__search' }] },
        { tool_calls: [{ name: 'kb__search' }] },
        { text: 'end' },
      ],
    });
    expect((await long.run(request({ budget: { maxTurns: 2 } }))).failure?.code).toBe('budget_exhausted');
    const controller = new AbortController();
    controller.abort();
    expect((await slow.run(request({ signal: controller.signal }))).failure?.code).toBe('aborted');
  });
});

describe('resolveSubstrate', () => {
  it('refuses an unknown kind with the known ones in the hint', async () => {
    const error = await resolveSubstrate('no-such-model').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).code).toBe('SUBSTRATE_UNKNOWN');
    expect((error as UserError).hint).toContain('scripted');
  });

  it('needs a file for scripted', async () => {
    await expect(resolveSubstrate('scripted')).rejects.toThrow(/needs a script file/);
  });
});
