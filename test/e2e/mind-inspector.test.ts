import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, exampleHomeCopy, REPO_ROOT } from '../helpers/index.js';

// The MCP Inspector CLI (1.0.3, the release that runs on Node 20) is a dev dependency, so this
// needs no network: the same tool a user would run with `npx -y -p @modelcontextprotocol/inspector@1.0.3`.
const INSPECTOR = join(REPO_ROOT, 'node_modules', '.bin', 'mcp-inspector');

describe('MCP Inspector CLI', () => {
  it('gets the packet from bootstrap_session over stdio', () => {
    const home = exampleHomeCopy();
    try {
      const result = spawnSync(
        INSPECTOR,
        [
          '--cli',
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
        ],
        { encoding: 'utf8', timeout: 60_000 },
      );
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

  it('lists the tools', () => {
    const home = exampleHomeCopy();
    try {
      const result = spawnSync(
        INSPECTOR,
        ['--cli', process.execPath, CLI, 'serve', '--home', home.dir, '--method', 'tools/list'],
        {
          encoding: 'utf8',
          timeout: 60_000,
        },
      );
      expect(result.status, result.stderr).toBe(0);
      const names = JSON.parse(result.stdout).tools.map((t: { name: string }) => t.name);
      expect(names).toContain('bootstrap_session');
    } finally {
      home.dispose();
    }
  });
});
