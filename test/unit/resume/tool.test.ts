import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/index.js';
import { type BootstrapPacket, renderPacketMarkdown } from '../../../src/mind/index.js';
import { createFirstlight, createMindServer, type Firstlight } from '../../../src/servers/index.js';
import { exampleHomeCopy, structured, textOf } from '../../helpers/index.js';

let home: { dir: string; dispose: () => void };
let firstlight: Firstlight;
let client: Client;

beforeEach(async () => {
  home = exampleHomeCopy();
  firstlight = createFirstlight({ home: home.dir });
  const server = createMindServer({ firstlight, log: silentLogger, sessionKey: 'conn-1' });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  client = new Client({ name: 'test', version: '0' });
  await client.connect(b);
});
afterEach(async () => {
  await client.close();
  firstlight.close();
  home.dispose();
});

describe('internalize tool', () => {
  it('is registered on the firstlight server, listed in the packet, with true annotations', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'internalize');
    expect(tool?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(tool?.inputSchema.required).toEqual(['stream_tail']);
    const packet = structured<BootstrapPacket>(
      await client.callTool({ name: 'bootstrap_session', arguments: {} }),
    );
    expect(packet.available_mind_tools).toContain('internalize');
    expect(packet.resumption).toBeNull();
  });

  it('stores what bootstrap_session then returns first, and the markdown begins with it', async () => {
    const stored = structured<{ session_key: string; anchors_next: { text: string; trigger: string }[] }>(
      await client.callTool({
        name: 'internalize',
        arguments: {
          stream_tail: 'the gate needs to normalize before it matches, otherwise',
          anchors: ['normalize first', { text: 'fail closed', trigger: 'decision' }],
        },
      }),
    );
    expect(stored.session_key).toBe('conn-1');
    expect(stored.anchors_next).toEqual([
      { text: 'normalize first', trigger: 'resonance' },
      { text: 'fail closed', trigger: 'decision' },
    ]);
    const packet = structured<BootstrapPacket>(
      await client.callTool({ name: 'bootstrap_session', arguments: {} }),
    );
    expect(Object.keys(packet)[0]).toBe('resumption');
    expect(packet.resumption?.stream_tail).toBe('the gate needs to normalize before it matches, otherwise');
    const markdown = renderPacketMarkdown(packet);
    expect(markdown.startsWith('# Resumption Context\n')).toBe(true);
    expect(markdown.indexOf('"the gate needs to normalize before it matches, otherwise"')).toBeLessThan(
      markdown.indexOf('# firstlight: session bootstrap'),
    );
  });

  it('tells the agent to bootstrap with its session id when the packet has one', async () => {
    const anonymous = renderPacketMarkdown(
      structured<BootstrapPacket>(await client.callTool({ name: 'bootstrap_session', arguments: {} })),
    );
    expect(anonymous).toContain('Required first call: `bootstrap_session()` on the firstlight MCP server');
    expect(anonymous).not.toContain('session_id');
    const packet = structured<BootstrapPacket>(
      await client.callTool({ name: 'bootstrap_session', arguments: { session_id: 'sess "7"' } }),
    );
    const markdown = renderPacketMarkdown(packet);
    expect(markdown).toContain(
      'Required first call: `bootstrap_session(session_id: "sess \\"7\\"")` on the firstlight MCP server',
    );
    expect(markdown).toContain('Pass the same session_id to `internalize`.');
  });

  it('returns a readable error result for bad input, storing nothing', async () => {
    const result = await client.callTool({
      name: 'internalize',
      arguments: { stream_tail: ' ', anchors: [] },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/INVALID_ARGUMENT: nothing to internalize/);
  });
});
