import { describe, expect, it } from 'vitest';
import { CLI, exampleHomeCopy, runInspector } from '../helpers/index.js';

// The MCP Inspector CLI as a user runs it: `npx -y -p @modelcontextprotocol/inspector@1.0.3`
// (the release that runs on Node 20; fetched once into npx's cache).

// npx may fetch the Inspector on a cold cache: more time than the default.
describe('MCP Inspector CLI', { timeout: 180_000 }, () => {
  it('gets the packet from bootstrap_session over stdio', async () => {
    const home = exampleHomeCopy();
    try {
      const result = await runInspector([
        process.execPath,
        CLI,
        'serve',
        '--home',
        home.dir,
        '--method',
        'tools/call',
        '--tool-name',
        'bootstrap_session',
        '--tool-arg',
        'session_id=inspector',
      ]);
      expect(result.status, result.stderr).toBe(0);
      const response = JSON.parse(result.stdout);
      const packet = response.structuredContent ?? JSON.parse(response.content[0].text);
      expect(packet.schema_version).toBe(1);
      expect(packet.session_id).toBe('inspector');
      expect(packet.mind_contract_available).toBe(true);
    } finally {
      home.dispose();
    }
  });

  it('lists the tools', async () => {
    const home = exampleHomeCopy();
    try {
      const result = await runInspector([
        process.execPath,
        CLI,
        'serve',
        '--home',
        home.dir,
        '--method',
        'tools/list',
      ]);
      expect(result.status, result.stderr).toBe(0);
      const names = JSON.parse(result.stdout).tools.map((t: { name: string }) => t.name);
      expect(names).toContain('bootstrap_session');
    } finally {
      home.dispose();
    }
  });
});
