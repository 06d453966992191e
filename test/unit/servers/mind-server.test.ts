import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../../src/core/index.js';
import { bootstrapRecordDir, readBootstrapRecord } from '../../../src/mind/bootstrap-record/index.js';
import { packetJsonSchema } from '../../../src/mind/index.js';
import { createFirstlight, createMindServer, MIND_INSTRUCTIONS } from '../../../src/servers/index.js';
import { exampleHomeCopy, REPO_ROOT, structured, textOf } from '../../helpers/index.js';

async function connect(home: string) {
  const firstlight = createFirstlight({ home });
  const server = createMindServer({ firstlight, log: silentLogger });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'unit', version: '0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  const close = async () => {
    await client.close();
    firstlight.close();
  };
  return { client, close };
}

describe('createMindServer', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  it('reads available_mind_tools back from the registered tools', async () => {
    const h = exampleHomeCopy();
    const c = await connect(h.dir);
    cleanups.push(c.close, h.dispose);
    const { tools } = await c.client.listTools();
    const packet = structured<{ available_mind_tools: string[] }>(
      await c.client.callTool({ name: 'bootstrap_session', arguments: {} }),
    );
    expect(packet.available_mind_tools).toEqual(tools.map((t) => t.name).sort());
  });

  it('marks every tool with annotations and an output schema, and says "call this first"', async () => {
    const h = exampleHomeCopy();
    const c = await connect(h.dir);
    cleanups.push(c.close, h.dispose);
    const { tools } = await c.client.listTools();
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint, tool.name).toBeTypeOf('boolean');
      expect(tool.annotations?.destructiveHint, tool.name).toBeTypeOf('boolean');
      expect(tool.outputSchema, tool.name).toBeDefined();
    }
    const bootstrap = tools.find((t) => t.name === 'bootstrap_session');
    expect(bootstrap?.description).toMatch(/^Call bootstrap_session\(\) FIRST/);
    expect(tools.find((t) => t.name === 'get_system_prompt')?.annotations?.readOnlyHint).toBe(true);
  });

  it('keeps instructions under 2 KB with the bootstrap rule first', async () => {
    const h = exampleHomeCopy();
    const c = await connect(h.dir);
    cleanups.push(c.close, h.dispose);
    expect(Buffer.byteLength(MIND_INSTRUCTIONS)).toBeLessThan(2048);
    expect(c.client.getInstructions()).toBe(MIND_INSTRUCTIONS);
    expect(MIND_INSTRUCTIONS.startsWith('Call bootstrap_session() FIRST')).toBe(true);
  });

  it('records a successful bootstrap with a session id for the tool gate; none without one, none when degraded', async () => {
    const h = exampleHomeCopy();
    const c = await connect(h.dir);
    cleanups.push(c.close, h.dispose);
    await c.client.callTool({ name: 'bootstrap_session', arguments: {} });
    expect(existsSync(bootstrapRecordDir(h.dir))).toBe(false);
    // Written right after the answer goes out (the next turn of the event loop).
    await c.client.callTool({ name: 'bootstrap_session', arguments: { session_id: 'gate-1' } });
    await vi.waitFor(() =>
      expect(readBootstrapRecord(h.dir, 'gate-1')).toMatchObject({
        session_id: 'gate-1',
        via: 'bootstrap_session',
      }),
    );
    await c.client.callTool({ name: 'get_system_prompt', arguments: { session_id: 'gate-2' } });
    await vi.waitFor(() =>
      expect(readBootstrapRecord(h.dir, 'gate-2')).toMatchObject({ via: 'get_system_prompt' }),
    );

    const broken = exampleHomeCopy();
    rmSync(join(broken.dir, 'persona', 'agent_system.md'));
    const d = await connect(broken.dir);
    cleanups.push(d.close, broken.dispose);
    const packet = structured<{ mind_contract_available: boolean }>(
      await d.client.callTool({ name: 'bootstrap_session', arguments: { session_id: 'gate-3' } }),
    );
    expect(packet.mind_contract_available).toBe(false);
    await d.client.callTool({ name: 'get_system_prompt', arguments: { session_id: 'gate-3' } });
    // Both servers run in this process: once a later call's record is written, gate-3's would be.
    await c.client.callTool({ name: 'bootstrap_session', arguments: { session_id: 'gate-4' } });
    await vi.waitFor(() => expect(readBootstrapRecord(h.dir, 'gate-4')).not.toBeNull());
    expect(readBootstrapRecord(broken.dir, 'gate-3')).toBeNull();
  });

  it('turns a bad argument into a readable isError result', async () => {
    const h = exampleHomeCopy();
    const c = await connect(h.dir);
    cleanups.push(c.close, h.dispose);
    const result = await c.client.callTool({
      name: 'read_memory_file',
      arguments: { name: '../firstlight.yaml' },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('PATH_ESCAPE');
    expect(textOf(result)).toContain('fix:');
  });
});

describe('schema/bootstrap-session.v1.json', () => {
  it('matches the packet schema in code (run `npm run schema:write` after changing it)', () => {
    const shipped = JSON.parse(readFileSync(`${REPO_ROOT}/schema/bootstrap-session.v1.json`, 'utf8'));
    expect(shipped).toEqual(packetJsonSchema());
  });
});
