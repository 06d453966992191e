import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/index.js';
import { OWN_TOOLS, ownTool } from '../../../src/host/hook/own-tools.js';
import { createMind } from '../../../src/mind/index.js';
import { createMindServer } from '../../../src/servers/index.js';
import { exampleHomeCopy, tempDir } from '../../helpers/index.js';

describe("the gate's list of firstlight's own tools", () => {
  it('is exactly the tools the mind server registers', async () => {
    const home = exampleHomeCopy();
    const project = tempDir();
    const mind = createMind({ home: home.dir, projectDir: project.dir });
    const server = createMindServer({ mind, log: silentLogger });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'unit', version: '0' });
    try {
      await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      expect([...OWN_TOOLS].sort()).toEqual(names);
    } finally {
      await client.close();
      mind.close();
      home.dispose();
      project.dispose();
    }
  });

  it('recognises only our prefix plus our tool name', () => {
    expect(ownTool('mcp__firstlight__bootstrap_session')).toBe('bootstrap_session');
    expect(ownTool('firstlight__recall')).toBe('recall');
    expect(ownTool('mcp_firstlight_remember')).toBe('remember');
    for (const other of [
      'bootstrap_session',
      'mcp__evil__bootstrap_session',
      'mcp__evil__send_bootstrap_session',
      'mcp__firstlight__send_email',
      'mcp_firstlight_evil_send',
      'xmcp__firstlight__recall',
    ])
      expect(ownTool(other), other).toBeNull();
  });
});
