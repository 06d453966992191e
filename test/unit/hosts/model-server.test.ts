import { afterEach, describe, expect, it } from 'vitest';
import {
  type ModelServer,
  type RecordedRequest,
  requestText,
  ScriptNotCompleteError,
  sampleOf,
  startModelServer,
  toolNames,
  toolResults,
} from '../../hosts/model-server.js';

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = (path: string, body: unknown) =>
  fetch(`${server!.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** The data payloads of an SSE body, with their event names. */
async function events(res: Response): Promise<{ event: string | null; data: string }[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((block) => block.trim())
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1] ?? null;
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { event, data };
    });
}

const call = { name: 'Bash', input: { command: 'ls' }, id: 'c1' };

describe('startModelServer', () => {
  it('listens on 127.0.0.1 only', async () => {
    server = await startModelServer();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('answers Anthropic Messages as JSON with text and tool_use blocks', async () => {
    server = await startModelServer({ script: [{ text: 'hi', toolCalls: [call] }] });
    const res = await post('/v1/messages', { model: 'm', messages: [{ role: 'user', content: 'go' }] });
    const body = await res.json();
    expect(body).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'm',
      stop_reason: 'tool_use',
      content: [
        { type: 'text', text: 'hi' },
        { type: 'tool_use', id: 'c1', name: 'Bash', input: { command: 'ls' } },
      ],
    });
  });

  it('streams Anthropic Messages with the real event sequence and input_json_delta', async () => {
    server = await startModelServer({ script: [{ text: 'hi', toolCalls: [call] }] });
    const res = await post('/v1/messages?beta=true', { model: 'm', stream: true, messages: [] });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const evs = await events(res);
    expect(evs.map((e) => e.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const e of evs) expect(JSON.parse(e.data).type).toBe(e.event);
    expect(JSON.parse(evs[5]!.data).content_block).toEqual({
      type: 'tool_use',
      id: 'c1',
      name: 'Bash',
      input: {},
    });
    const delta = JSON.parse(evs[6]!.data).delta;
    expect(delta.type).toBe('input_json_delta');
    expect(JSON.parse(delta.partial_json)).toEqual({ command: 'ls' });
    expect(JSON.parse(evs[8]!.data).delta.stop_reason).toBe('tool_use');
  });

  it('streams the OpenAI Responses API with function_call items and usage', async () => {
    server = await startModelServer({
      script: [{ text: 'hi', toolCalls: [{ ...call, namespace: 'mcp__x' }] }],
    });
    const evs = await events(await post('/v1/responses', { model: 'gpt', stream: true, input: [] }));
    const types = evs.map((e) => e.event);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.output_text.delta');
    expect(types).toContain('response.function_call_arguments.delta');
    const done = evs
      .filter((e) => e.event === 'response.output_item.done')
      .map((e) => JSON.parse(e.data).item);
    expect(done[0]).toMatchObject({ type: 'message', content: [{ type: 'output_text', text: 'hi' }] });
    expect(done[1]).toMatchObject({
      type: 'function_call',
      call_id: 'c1',
      name: 'Bash',
      namespace: 'mcp__x',
      arguments: '{"command":"ls"}',
    });
    const completed = JSON.parse(evs.at(-1)!.data).response;
    expect(completed.status).toBe('completed');
    expect(completed.usage.total_tokens).toBeGreaterThan(0);
  });

  it('answers Chat Completions streamed (tool_calls deltas, [DONE]) and as JSON', async () => {
    server = await startModelServer({ script: [{ toolCalls: [call] }, { text: 'plain' }] });
    const evs = await events(await post('/v1/chat/completions', { model: 'c', stream: true, messages: [] }));
    expect(evs.at(-1)!.data).toBe('[DONE]');
    const chunks = evs.slice(0, -1).map((e) => JSON.parse(e.data));
    const deltas = chunks.flatMap((c) => c.choices.map((ch: { delta: object }) => ch.delta));
    expect(deltas).toContainEqual({
      tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'Bash', arguments: '' } }],
    });
    expect(deltas).toContainEqual({
      tool_calls: [{ index: 0, function: { arguments: '{"command":"ls"}' } }],
    });
    expect(
      chunks.flatMap((c) => c.choices.map((ch: { finish_reason: string }) => ch.finish_reason)),
    ).toContain('tool_calls');
    const json = await (await post('/v1/chat/completions', { model: 'c', messages: [] })).json();
    expect(json.choices[0]).toMatchObject({
      message: { role: 'assistant', content: 'plain' },
      finish_reason: 'stop',
    });
  });

  it('answers Gemini generateContent, streamGenerateContent as SSE and as a JSON array', async () => {
    server = await startModelServer({ script: [{ toolCalls: [call] }, { text: 'sse' }, { text: 'array' }] });
    const one = await (await post('/v1beta/models/g-1:generateContent', { contents: [] })).json();
    expect(one.candidates[0].content.parts[0]).toEqual({
      functionCall: { id: 'c1', name: 'Bash', args: { command: 'ls' } },
    });
    const sse = await events(
      await post('/v1beta/models/g-1:streamGenerateContent?alt=sse', { contents: [] }),
    );
    expect(JSON.parse(sse[0]!.data).candidates[0].content.parts[0]).toEqual({ text: 'sse' });
    const array = await (await post('/v1beta/models/g-1:streamGenerateContent', { contents: [] })).json();
    expect(Array.isArray(array)).toBe(true);
    expect(array[0].candidates[0].content.parts[0]).toEqual({ text: 'array' });
    expect(array[0].modelVersion).toBe('g-1');
  });

  it('answers past the script with the fallback, "done" by default', async () => {
    server = await startModelServer();
    const body = await (await post('/v1/messages', { messages: [] })).json();
    expect(body.content).toEqual([{ type: 'text', text: 'done' }]);
    await server.close();
    server = await startModelServer({ fallback: { text: 'custom' } });
    const again = await (await post('/v1/messages', { messages: [] })).json();
    expect(again.content).toEqual([{ type: 'text', text: 'custom' }]);
  });

  it('returns a scripted error status, then the next step (a host retrying a 529)', async () => {
    server = await startModelServer({ script: [{ status: 529 }, { text: 'after retry' }] });
    const failed = await post('/v1/messages', { messages: [] });
    expect(failed.status).toBe(529);
    expect(await failed.json()).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'overloaded_error' },
    });
    const ok = await (await post('/v1/messages', { messages: [] })).json();
    expect(ok.content[0].text).toBe('after retry');
  });

  it('lets a step react to the recorded request', async () => {
    server = await startModelServer({
      script: [(req: RecordedRequest) => ({ text: `you sent ${toolNames(req).join(',')}` })],
    });
    const body = await (
      await post('/v1/messages', { tools: [{ name: 'Read' }, { name: 'Bash' }], messages: [] })
    ).json();
    expect(body.content[0].text).toBe('you sent Read,Bash');
  });

  it('records requests and keeps side requests off the script', async () => {
    server = await startModelServer({ script: [{ text: 'first' }] });
    const count = await (await post('/v1/messages/count_tokens', { messages: [] })).json();
    expect(count.input_tokens).toBeGreaterThan(0);
    const models = await (await fetch(`${server.url}/v1/models`)).json();
    expect(models.data[0].id).toBe('scripted-model');
    expect(
      (await fetch(`${server.url}/api/event_logging/batch`, { method: 'POST', body: '{}' })).status,
    ).toBe(200);
    const body = await (
      await post('/v1/messages', { messages: [{ role: 'user', content: 'hello' }] })
    ).json();
    expect(body.content[0].text).toBe('first');
    expect(server.side.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/messages/count_tokens',
      'GET /v1/models',
      'POST /api/event_logging/batch',
    ]);
    expect(server.turns).toHaveLength(1);
    const turn = server.turns[0]!;
    expect(turn).toMatchObject({
      method: 'POST',
      path: '/v1/messages',
      wire: 'anthropic',
      stream: false,
      seq: 3,
    });
    expect(turn.headers['content-type']).toBe('application/json');
    expect(requestText(turn)).toContain('hello');
    expect(server.all).toHaveLength(4);
  });

  it('answers a Gemini structured-output helper call by its schema without using the script', async () => {
    server = await startModelServer({ script: [{ text: 'real turn' }] });
    const schema = {
      type: 'OBJECT',
      properties: {
        reasoning: { type: 'STRING' },
        next_speaker: { type: 'STRING', enum: ['user', 'model'] },
      },
      required: ['reasoning', 'next_speaker'],
    };
    const side = await (
      await post('/v1beta/models/g:generateContent', {
        contents: [],
        generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema },
      })
    ).json();
    expect(JSON.parse(side.candidates[0].content.parts[0].text)).toEqual({
      reasoning: 'scripted',
      next_speaker: 'user',
    });
    expect(server.side).toHaveLength(1);
    expect(server.remaining()).toBe(1);
    expect(() => server!.assertComplete()).toThrow(ScriptNotCompleteError);
    await post('/v1beta/models/g:streamGenerateContent?alt=sse', { contents: [] });
    expect(() => server!.assertComplete()).not.toThrow();
  });

  it('push() appends steps to a running script', async () => {
    server = await startModelServer();
    server.push({ text: 'pushed' });
    expect(server.remaining()).toBe(1);
    const body = await (await post('/v1/messages', { messages: [] })).json();
    expect(body.content[0].text).toBe('pushed');
  });
});

describe('sampleOf', () => {
  it('fills required properties and picks the first enum entry', () => {
    expect(
      sampleOf({
        type: 'object',
        properties: {
          n: { type: 'integer' },
          ok: { type: 'boolean' },
          xs: { type: 'array' },
          s: { enum: ['a'] },
        },
      }),
    ).toEqual({ n: 1, ok: false, xs: [], s: 'a' });
  });
});

describe('toolResults', () => {
  const recorded = (wire: RecordedRequest['wire'], body: unknown): RecordedRequest => ({
    seq: 0,
    method: 'POST',
    path: '/',
    query: {},
    headers: {},
    body,
    wire,
    stream: true,
  });

  it('reads Anthropic tool_result blocks with the name of their tool_use', () => {
    const body = {
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 't1',
              content: [{ type: 'text', text: 'denied' }],
              is_error: true,
            },
          ],
        },
      ],
    };
    expect(toolResults(recorded('anthropic', body))).toEqual([
      { callId: 't1', name: 'Bash', text: 'denied', isError: true },
    ]);
  });

  it('reads Responses function_call_output, joining a namespace to the name', () => {
    const body = {
      input: [
        {
          type: 'function_call',
          call_id: 'c',
          name: 'bootstrap_session',
          namespace: 'mcp__firstlight',
          arguments: '{}',
        },
        { type: 'function_call_output', call_id: 'c', output: 'Wall time: 0.01 seconds\nOutput:\n{}' },
      ],
    };
    expect(toolResults(recorded('responses', body))).toEqual([
      {
        callId: 'c',
        name: 'mcp__firstlight__bootstrap_session',
        text: 'Wall time: 0.01 seconds\nOutput:\n{}',
        isError: false,
      },
    ]);
  });

  it('reads Chat tool messages and Gemini functionResponse parts', () => {
    const chat = {
      messages: [
        {
          role: 'assistant',
          tool_calls: [{ id: 'k', type: 'function', function: { name: 'Bash', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'k', content: 'ok' },
      ],
    };
    expect(toolResults(recorded('chat', chat))).toEqual([
      { callId: 'k', name: 'Bash', text: 'ok', isError: false },
    ]);
    const gemini = {
      contents: [
        {
          role: 'user',
          parts: [{ functionResponse: { id: 'g', name: 'run_shell_command', response: { error: 'no' } } }],
        },
      ],
    };
    expect(toolResults(recorded('gemini', gemini))).toEqual([
      { callId: 'g', name: 'run_shell_command', text: '{"error":"no"}', isError: true },
    ]);
  });
});

describe('startModelServer: overloads mid-stream and slow replies', () => {
  it('breaks an Anthropic stream off with an overloaded_error event, then answers the next step', async () => {
    server = await startModelServer({ script: [{ text: 'partial', streamError: {} }, { text: 'whole' }] });
    const evs = await events(await post('/v1/messages', { model: 'm', stream: true, messages: [] }));
    expect(evs.at(-1)).toEqual({
      event: 'error',
      data: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    });
    expect(evs.map((e) => e.event)).not.toContain('message_stop');
    const next = await events(await post('/v1/messages', { model: 'm', stream: true, messages: [] }));
    expect(next.at(-1)?.event).toBe('message_stop');
  });

  it('breaks Chat Completions and Responses streams off with their own error shapes', async () => {
    server = await startModelServer({
      script: [
        { text: 'a', streamError: { afterChunks: 1 } },
        { text: 'b', streamError: { afterChunks: 2 } },
      ],
    });
    const chat = await events(await post('/v1/chat/completions', { stream: true, messages: [] }));
    expect(chat).toHaveLength(2);
    expect(JSON.parse(chat[1]!.data)).toMatchObject({ error: { code: 'overloaded' } });
    const responses = await events(await post('/v1/responses', { stream: true, input: [] }));
    expect(responses).toHaveLength(3);
    expect(responses[2]!.event).toBe('error');
    expect(JSON.parse(responses[2]!.data)).toMatchObject({ type: 'error', code: 'server_is_overloaded' });
  });

  it('waits delayMs before answering a reply or an error', async () => {
    server = await startModelServer({
      script: [
        { text: 'slow', delayMs: 150 },
        { status: 529, delayMs: 100 },
      ],
    });
    let started = Date.now();
    expect((await (await post('/v1/messages', { messages: [] })).json()).content[0].text).toBe('slow');
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    started = Date.now();
    expect((await post('/v1/messages', { messages: [] })).status).toBe(529);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });
});
