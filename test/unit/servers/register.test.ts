import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, READ_ONLY, silentLogger } from '../../../src/core/index.js';
import { registerTools } from '../../../src/servers/index.js';

describe('registerTools', () => {
  it('hands a tool `progress` only when the client sent a progressToken', async () => {
    const server = new McpServer({ name: 'unit', version: '0' });
    const probe = defineTool({
      name: 'probe',
      title: 'Probe',
      description: 'Says whether it got a progress reporter, and reports once when it did.',
      input: {},
      output: { progress: z.boolean() },
      annotations: READ_ONLY,
      handler: async (_args, extra) => {
        await extra.progress?.(1, 1, 'done');
        return { progress: extra.progress !== undefined };
      },
    });
    registerTools(server, [probe], silentLogger);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'unit', version: '0' });
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);

    const plain = await client.callTool({ name: 'probe', arguments: {} });
    expect(plain.structuredContent).toEqual({ progress: false });

    const reported: number[] = [];
    const asked = await client.callTool({ name: 'probe', arguments: {} }, undefined, {
      onprogress: (p) => reported.push(p.progress),
    });
    expect(asked.structuredContent).toEqual({ progress: true });
    expect(reported).toEqual([1]);
    await client.close();
  });
});
