/**
 * Malformed and oversized input to the servers and tools: a request over the documented limit
 * (4 MiB, stdio and HTTP alike) gets a JSON-RPC error naming it and the server answers the next
 * one; a line that is not JSON gets a parse error; out-of-range numbers are refused with the
 * range; wrong types come back as errors, never a crash.
 */
import { describe, expect, it } from 'vitest';
import { exampleHomeCopy, startHttpServer } from '../helpers/index.js';
import { cli, figure, rawServer, structuredOf, textOf, wire } from './helpers.js';

const MiB = 1024 * 1024;

/** A tools/call whose one argument is `bytes` long. */
function bigCall(id: number, tool: string, field: string, bytes: number) {
  return `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: { [field]: 'x'.repeat(bytes) } } })}\n`;
}

for (const [server, args, tool, field] of [
  ['mind', ['serve'], 'remember', 'content'],
  ['repl', ['repl', 'serve'], 'execute', 'code'],
] as const) {
  describe('malformed and oversized input', () => {
    it(`${server} stdio: an 11 MiB request is answered with an error naming the limit, and the server goes on`, async ({
      task,
    }) => {
      const home = exampleHomeCopy();
      const s = rawServer([...args, '--home', home.dir]);
      try {
        s.initialize();
        expect(await s.answer(0, 20_000), s.stderr()).toBeDefined();
        const started = Date.now();
        await s.write(bigCall(7, tool, field, 11 * MiB));
        const refused = await s.answer(7, 20_000);
        figure(task, `${server} 11 MiB refusal ms`, Date.now() - started);
        expect(refused?.error?.message, s.stderr()).toMatch(/over the 4194304-byte limit/);
        s.send({ jsonrpc: '2.0', id: 8, method: 'tools/list' });
        const next = await s.answer(8, 20_000);
        expect(next?.result?.tools?.length).toBeGreaterThan(0);
        expect(s.stderr()).toMatch(/refused a request/);
      } finally {
        s.kill();
        home.dispose();
      }
    });

    it(`${server} stdio: a line that is not JSON gets a parse error; the next request is answered`, async () => {
      const home = exampleHomeCopy();
      const s = rawServer([...args, '--home', home.dir]);
      try {
        s.initialize();
        expect(await s.answer(0, 20_000)).toBeDefined();
        await s.write('{"jsonrpc": "2.0", "id": 3, "method": \n');
        await s.write('\u0000\u0001 binary\n');
        s.send({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
        expect((await s.answer(4))?.result?.tools?.length).toBeGreaterThan(0);
        expect(s.answers.some((a) => a.error?.code === -32700)).toBe(true);
      } finally {
        s.kill();
        home.dispose();
      }
    });
  });
}

describe('malformed and oversized input', () => {
  it('a request just under the limit is served (the limit is not lower than documented)', async () => {
    const home = exampleHomeCopy();
    const w = await wire(['repl', 'serve', '--home', home.dir]);
    try {
      const code = `len(${JSON.stringify('y'.repeat(3 * MiB))})`;
      const out = structuredOf<{ return_value: unknown }>(
        await w.client.callTool({ name: 'execute', arguments: { code } }),
      );
      expect(out.return_value).toBe(3 * MiB);
    } finally {
      await w.close();
      home.dispose();
    }
  });

  it('execute refuses a timeout past the range (1e308, 0, -1) naming it, and still runs cells', async ({
    task,
  }) => {
    const home = exampleHomeCopy();
    const w = await wire(['repl', 'serve', '--home', home.dir]);
    try {
      for (const timeout of [1e308, 86_401, 0, -1]) {
        const started = Date.now();
        const out = await w.client.callTool({ name: 'execute', arguments: { code: '6 * 7', timeout } });
        if (timeout === 1e308) figure(task, 'timeout 1e308 answer ms', Date.now() - started);
        expect(out.isError, `timeout ${timeout}`).toBe(true);
        expect(textOf(out)).toMatch(/86400/);
      }
      const ok = structuredOf<{ return_value: unknown; success: boolean }>(
        await w.client.callTool({
          name: 'execute',
          arguments: { code: 'import time; time.sleep(0.2); 6 * 7', timeout: 86_400 },
        }),
      );
      expect(ok).toMatchObject({ success: true, return_value: 42 });
    } finally {
      await w.close();
      home.dispose();
    }
  });

  it('wrong types and missing fields to every mind tool come back as errors, the server stays up', async ({
    task,
  }) => {
    const home = exampleHomeCopy();
    const w = await wire(['serve', '--home', home.dir]);
    try {
      const { tools } = await w.client.listTools();
      let tried = 0;
      for (const tool of tools) {
        const required = (tool.inputSchema.required ?? []) as string[];
        const bad = Object.fromEntries(
          Object.keys(tool.inputSchema.properties ?? {}).map((k) => [k, { nested: [1, null] }]),
        );
        for (const args of [bad, ...(required.length > 0 ? [{}] : [])]) {
          tried++;
          const out = await w.client.callTool({ name: tool.name, arguments: args }).catch((error: Error) => ({
            isError: true,
            content: [{ type: 'text', text: error.message }],
          }));
          if (Object.keys(args).length > 0) expect(out.isError, tool.name).toBe(true);
        }
      }
      figure(task, 'bad tool calls', tried);
      expect((await w.client.listTools()).tools.length).toBe(tools.length);
    } finally {
      await w.close();
      home.dispose();
    }
  });

  it('every CLI command answers an unknown option with exit 2, not a crash', async () => {
    for (const command of [
      'serve',
      'init',
      'doctor',
      'install claude',
      'taskspace',
      'remember',
      'recall',
      'packet',
      'internalize',
      'repl serve',
      'hook pre-tool-use',
    ]) {
      const out = await cli([...command.split(' '), '--no-such-option'], { timeoutMs: 15_000 });
      expect(out.status, command).toBe(2);
    }
  });

  it('HTTP: a body over the limit gets 413 naming it; the server answers the next request', async ({
    task,
  }) => {
    const home = exampleHomeCopy();
    const server = await startHttpServer(['--home', home.dir]);
    try {
      const started = Date.now();
      const big = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"${'z'.repeat(5 * MiB)}"}}`,
      });
      figure(task, 'HTTP 5 MiB refusal ms', Date.now() - started);
      expect(big.status).toBe(413);
      expect((await big.json()).error.message).toMatch(/4194304 bytes/);
      const ok = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'r', version: '0' },
          },
        }),
      });
      expect(ok.status).toBe(200);
    } finally {
      await server.stop();
      home.dispose();
    }
  });
});
