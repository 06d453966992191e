/**
 * The `gemini-cli` substrate against the real Gemini CLI (the version pinned in cache.ts),
 * pointed at the scripted model server, with the real `@modelcontextprotocol/server-memory` as
 * the invocation's MCP server: what a validator is offered and what happens to a call to a
 * removed tool.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubstrate, type SubstrateEvent } from '../../src/runtime/index.js';
import { REPO_ROOT } from '../helpers/index.js';
import { ensureHost } from './cache.js';
import { startModelServer, toolNames, toolResults } from './model-server.js';

const MEMORY_SERVER = join(
  REPO_ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-memory',
  'dist',
  'index.js',
);
const tool = (name: string) => ({ name, description: name, inputSchema: { type: 'object' } });

let gemini: string | null = null;
let skipReason = '';
let root = '';
beforeAll(async () => {
  const host = await ensureHost('gemini');
  if (host.ok) gemini = host.bin;
  else {
    skipReason = host.reason;
    console.warn(`gemini-cli substrate tests skipped: ${host.reason}`);
  }
  root = mkdtempSync(join(tmpdir(), 'firstlight-gemini-substrate-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('gemini-cli substrate with the real Gemini CLI', () => {
  it('offers a validator no removed tool and reports a call to one as a denial', {
    timeout: 120_000,
  }, async ({ skip }) => {
    if (!gemini) return skip(skipReason);
    await using model = await startModelServer({
      script: [
        { toolCalls: [{ name: 'run_shell_command', input: { command: 'touch pwned', description: 'x' } }] },
        { toolCalls: [{ name: 'mcp_memory_create_entities', input: { entities: [] } }] },
        { toolCalls: [{ id: 'read', name: 'mcp_memory_read_graph', input: {} }] },
        { text: 'Findings: none.' },
      ],
    });
    // The user's one-time setup: an API key login and a trusted project folder.
    const home = join(root, 'home');
    const project = join(root, 'project');
    mkdirSync(join(home, '.gemini'), { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(
      join(home, '.gemini', 'settings.json'),
      JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
      }),
    );
    writeFileSync(
      join(home, '.gemini', 'trustedFolders.json'),
      JSON.stringify({ [project]: 'TRUST_FOLDER' }),
    );
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      TMPDIR: tmpdir(),
      GOOGLE_GEMINI_BASE_URL: model.url,
      GEMINI_API_KEY: 'scripted',
      GEMINI_TELEMETRY_ENABLED: 'false',
      NO_COLOR: '1',
    };
    const substrate = createSubstrate('gemini-cli', {
      env,
      cwd: project,
      settings: { substrates: { gemini_cli: { command: gemini } } },
    });
    const events: SubstrateEvent[] = [];
    const result = await substrate.run({
      sessionId: 'inv-gemini',
      systemPrompt: 'You are the validator.',
      messages: [{ role: 'user', content: 'Validate the artifact.' }],
      tools: [tool('memory__read_graph'), tool('memory__search_nodes'), tool('memory__open_nodes')],
      // As the runtime passes them: the built-ins and the server tools outside the role.
      removedTools: [
        'Bash',
        'Edit',
        'Write',
        'memory__create_entities',
        'memory__create_relations',
        'memory__add_observations',
        'memory__delete_entities',
        'memory__delete_observations',
        'memory__delete_relations',
      ],
      mcpServers: { memory: { command: process.execPath, args: [MEMORY_SERVER] } },
      async executeTool() {
        throw new Error('a CLI substrate never calls executeTool');
      },
      budget: { maxTurns: 10, wallTimeMs: 100_000 },
      signal: new AbortController().signal,
      onEvent: (event) => events.push(event),
    });
    expect(result, JSON.stringify(events.filter((e) => e.type === 'error'))).toMatchObject({
      status: 'completed',
      text: 'Findings: none.',
    });
    const offered = toolNames(model.turns[0]!);
    expect(offered).toEqual(
      expect.arrayContaining(['mcp_memory_read_graph', 'mcp_memory_search_nodes', 'mcp_memory_open_nodes']),
    );
    for (const gone of [
      'run_shell_command',
      'write_file',
      'replace',
      'mcp_memory_create_entities',
      'mcp_memory_delete_relations',
    ])
      expect(offered).not.toContain(gone);
    expect(result.permissionDenials.map((d) => d.tool)).toEqual(['Bash', 'memory__create_entities']);
    expect(toolResults(model.turns[3]!).find((r) => r.callId === 'read')?.text).toContain('entities');
    expect(result.usage.inputTokens).toBeGreaterThan(0);
  });
});
