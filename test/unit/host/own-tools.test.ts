import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/index.js';
import {
  CONTRACT_ERROR_PREFIX,
  OWN_TOOLS,
  ownProofTool,
  ownTool,
  UNPROMPTED_TOOLS,
} from '../../../src/host/hook/own-tools.js';
import { CONTRACT_ERROR_PREFIX as MIND_CONTRACT_ERROR_PREFIX } from '../../../src/mind/contract.js';
import { createFirstlight, createMindServer } from '../../../src/servers/index.js';
import { exampleHomeCopy, tempDir } from '../../helpers/index.js';

describe("the gate's list of firstlight's own tools", () => {
  it('is exactly the tools the mind server registers', async () => {
    const home = exampleHomeCopy();
    const project = tempDir();
    const firstlight = createFirstlight({ home: home.dir, projectDir: project.dir });
    const server = createMindServer({ firstlight, log: silentLogger });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'unit', version: '0' });
    try {
      await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
      const tools = (await client.listTools()).tools;
      const names = tools.map((t) => t.name).sort();
      expect([...OWN_TOOLS].sort()).toEqual(names);
      // A host runs these without asking: the startup call, and otherwise only read-only tools.
      for (const name of UNPROMPTED_TOOLS) {
        const tool = tools.find((t) => t.name === name);
        expect(tool, name).toBeDefined();
        if (name !== 'bootstrap_session') expect(tool!.annotations?.readOnlyHint, name).toBe(true);
      }
    } finally {
      await client.close();
      firstlight.close();
      home.dispose();
      project.dispose();
    }
  });

  it("keeps the mind's contract ERROR prefix (the gate must not load the mind to read it)", () => {
    expect(CONTRACT_ERROR_PREFIX).toBe(MIND_CONTRACT_ERROR_PREFIX);
  });

  it('proof tools: our bootstrap_session and legacy get_system_prompt, by prefix or recorded server', () => {
    expect(ownProofTool({ name: 'mcp__firstlight__bootstrap_session', server: null })).toBe(
      'bootstrap_session',
    );
    expect(ownProofTool({ name: 'firstlight-get_system_prompt', server: null })).toBe('get_system_prompt');
    expect(ownProofTool({ name: 'bootstrap_session', server: 'firstlight' })).toBe('bootstrap_session');
    expect(ownProofTool({ name: 'bootstrap_session', server: 'evil' })).toBeNull();
    expect(ownProofTool({ name: 'mcp__firstlight__recall', server: null })).toBeNull();
  });

  it('recognises only our prefix plus our tool name', () => {
    expect(ownTool('mcp__firstlight__bootstrap_session')).toBe('bootstrap_session');
    expect(ownTool('firstlight__recall')).toBe('recall');
    expect(ownTool('mcp_firstlight_remember')).toBe('remember');
    expect(ownTool('firstlight-recall')).toBe('recall');
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
