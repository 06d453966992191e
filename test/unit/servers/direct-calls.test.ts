import { PassThrough } from 'node:stream';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, READ_ONLY, silentLogger, UserError } from '../../../src/core/index.js';
import { attachDirectCalls, BoundedStdioServerTransport, registerTools } from '../../../src/servers/index.js';

const echo = defineTool({
  name: 'echo',
  title: 'Echo',
  description: 'Says its text back, reports progress when asked, refuses "no".',
  input: { text: z.string(), times: z.number().int().positive().default(1) },
  output: { said: z.string(), preview: z.boolean() },
  annotations: READ_ONLY,
  handler: async ({ text, times }, extra) => {
    if (text === 'no')
      throw new UserError('echo refuses "no"', { code: 'REFUSED', hint: 'say something else' });
    await extra.progress?.(1, 1, 'said');
    return { said: text.repeat(times), preview: extra.preview === true };
  },
});

/** An SDK server on our stdio transport over in-memory streams, with direct calls for `echo`. */
async function wired() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const server = new McpServer({ name: 'unit', version: '0' });
  registerTools(server, [echo], silentLogger);
  const transport = new BoundedStdioServerTransport(stdin, stdout);
  const taken: unknown[] = [];
  attachDirectCalls(transport, server, [echo], silentLogger);
  const direct = transport.direct!;
  transport.direct = (message) => {
    const took = direct(message);
    if (took) taken.push(message);
    return took;
  };
  await server.connect(transport);
  let buffer = '';
  const lines: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      lines.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
      nl = buffer.indexOf('\n');
    }
    for (const wake of waiters.splice(0)) wake();
  });
  /** Sends one request and resolves with every line up to its response (notifications first). */
  const call = async (id: number, params: Record<string, unknown>) => {
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params })}\n`);
    while (!lines.some((line) => line.id === id)) await new Promise<void>((wake) => waiters.push(wake));
    const upTo = lines.findIndex((line) => line.id === id);
    return lines.splice(0, upTo + 1);
  };
  return { call, taken, close: () => server.close() };
}

/** The SDK's way for the same call: a `_meta` key a direct call does not take. */
const viaSdk = (params: Record<string, unknown>) => ({
  ...params,
  _meta: { ...(params._meta as object), 'unit/route': 'sdk' },
});

describe('direct tool calls over stdio', () => {
  it('answer a plain call as the SDK answers it: result, tool error, defaults, preview', async () => {
    const t = await wired();
    const cases = [
      { name: 'echo', arguments: { text: 'hi', times: 2 } },
      { name: 'echo', arguments: { text: 'hi' } },
      { name: 'echo', arguments: { text: 'no' } },
      { name: 'echo', arguments: { text: 'dry' }, _meta: { 'firstlight/preview': true } },
    ];
    let id = 1;
    for (const params of cases) {
      const [direct] = await t.call(id++, params);
      const [sdk] = await t.call(id++, viaSdk(params));
      expect(t.taken).toHaveLength(cases.indexOf(params) + 1);
      expect({ ...direct, id: 0 }).toEqual({ ...sdk, id: 0 });
    }
    await t.close();
  });

  it('send progress when the client asked for it, before the result', async () => {
    const t = await wired();
    const lines = await t.call(7, {
      name: 'echo',
      arguments: { text: 'hi' },
      _meta: { progressToken: 'p1' },
    });
    expect(t.taken).toHaveLength(1);
    expect(lines).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 'p1', progress: 1, total: 1, message: 'said' },
      },
      expect.objectContaining({
        id: 7,
        result: expect.objectContaining({ structuredContent: { said: 'hi', preview: false } }),
      }),
    ]);
    await t.close();
  });

  it('leave the SDK what is not a plain call of a direct tool, and it answers as always', async () => {
    const t = await wired();
    const [invalid] = await t.call(1, { name: 'echo', arguments: { text: 3 } });
    expect(invalid).toMatchObject({ id: 1, result: { isError: true } });
    expect(JSON.stringify(invalid)).toMatch(/Input validation error/);
    const [unknown] = await t.call(2, { name: 'nope', arguments: {} });
    expect(JSON.stringify(unknown)).toMatch(/Tool nope not found/);
    const [extraKey] = await t.call(3, { name: 'echo', arguments: { text: 'a' }, extra: 1 });
    expect(extraKey).toMatchObject({ id: 3, result: { structuredContent: { said: 'a' } } });
    const [listArgs] = await t.call(4, { name: 'echo', arguments: ['a'] });
    expect(listArgs).toMatchObject({ id: 4 });
    expect(t.taken).toEqual([]);
    await t.close();
  });
});
