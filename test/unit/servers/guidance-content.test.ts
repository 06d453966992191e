import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/index.js';
import { createFirstlight, createMindServer, RESOURCE_NOT_FOUND } from '../../../src/servers/index.js';
import { exampleHomeCopy, tempDir } from '../../helpers/index.js';

async function connect(home: string, projectDir: string) {
  const firstlight = createFirstlight({ home, projectDir });
  const server = createMindServer({ firstlight, log: silentLogger });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'unit', version: '0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return {
    client,
    close: async () => {
      await client.close();
      firstlight.close();
    },
  };
}

describe('mind server resources and prompts', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  async function setup() {
    const home = exampleHomeCopy();
    const project = tempDir();
    const c = await connect(home.dir, project.dir);
    cleanups.push(c.close, home.dispose, project.dispose);
    return { ...c, project: project.dir };
  }

  it('advertises resources and prompts, with a guidance template', async () => {
    const { client } = await setup();
    const caps = client.getServerCapabilities();
    expect(caps?.resources).toBeDefined();
    expect(caps?.prompts).toBeDefined();
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      expect.objectContaining({ uriTemplate: 'firstlight://guidance/{name}', mimeType: 'text/markdown' }),
    ]);
  });

  it('turns an unknown guidance name into error -32002 listing the valid URIs', async () => {
    const { client } = await setup();
    const error = await client
      .readResource({ uri: 'firstlight://guidance/missing' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(RESOURCE_NOT_FOUND);
    expect((error as McpError).message).toContain('firstlight://guidance/coding-guidelines');
  });

  it('completes guidance names', async () => {
    const { client } = await setup();
    const result = await client.complete({
      ref: { type: 'ref/resource', uri: 'firstlight://guidance/{name}' },
      argument: { name: 'name', value: 'co' },
    });
    expect(result.completion.values.sort()).toEqual(['coding-guidelines', 'collaboration-patterns']);
  });

  it('sees an override added while the server runs, without a restart', async () => {
    const { client, project } = await setup();
    mkdirSync(join(project, '.firstlight', 'guidance'), { recursive: true });
    writeFileSync(join(project, '.firstlight', 'guidance', 'late.md'), '# Late\n\nAdded later.\n');
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.name)).toContain('late');
    const prompt = await client.getPrompt({ name: 'yiasou' });
    expect((prompt.messages[0]!.content as { text: string }).text).toContain('Added later.');
  });

  it('rejects a bad prompt argument as a protocol error', async () => {
    const { client } = await setup();
    const error = await client
      .getPrompt({ name: 'yiasou', arguments: { collaborator: 'x'.repeat(500) } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
  });
});
