import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { REPO_ROOT } from '../helpers/index.js';
import {
  ALL_ROLES_PROFILE,
  DELIVERABLES,
  HANDOFFS,
  type RuntimeFixture,
  runtimeFixture,
} from './runtime-fixture.js';

/**
 * Tools at two points, against a real MCP server from npm (@modelcontextprotocol/server-filesystem,
 * whose tools carry readOnlyHint): the list the substrate receives and rejection at execution.
 */
const FS_SERVER = join(
  REPO_ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-filesystem',
  'dist',
  'index.js',
);
const MUTATING_FS_TOOLS = ['write_file', 'edit_file', 'create_directory', 'move_file'];

describe('firstlight invoke: tools', { timeout: 60_000 }, () => {
  let fx: RuntimeFixture;
  let handoffFiles: Record<string, string>;
  const args = (role: string) => [
    '--persona',
    'fsteam',
    '--role',
    role,
    '--surface',
    'audit',
    '--engagement',
    'agent',
    '--task',
    `work as ${role}`,
  ];
  /** `firstlight invoke` in `role` on the scripted substrate, with the role's handoff when it needs one. */
  const invokeAs = (role: string, script: { path: string }) => {
    const handoff = handoffFiles[role];
    return fx.invoke([
      ...args(role),
      ...(handoff ? ['--handoff', handoff] : []),
      '--substrate',
      `scripted:${script.path}`,
    ]);
  };

  beforeAll(() => {
    fx = runtimeFixture();
    writeFileSync(join(fx.project, 'notes.txt'), 'Καλημέρα from the project\n');
    const server = (extra: Record<string, unknown>) => ({
      command: process.execPath,
      args: [FS_SERVER, fx.project],
      trust_read_only_hint: true,
      ...extra,
    });
    const profile = {
      ...ALL_ROLES_PROFILE,
      persona: 'fsteam',
      servers: {
        // Operational: the persona reads its own notes in every role, so only read tools.
        notes: server({ tools: ['read_*', 'list_*', 'directory_tree', 'search_files', 'get_file_info'] }),
        // Task-relevant: the whole filesystem server, filtered per role.
        workspace: server({}),
      },
      mcp_servers: { operational: ['notes'], task_relevant: ['workspace'] },
    };
    writeFileSync(join(fx.home, 'personas', 'fsteam.yaml'), stringify(profile));
    handoffFiles = {
      planner: fx.file('t-synthesis.json', HANDOFFS.synthesis),
      builder: fx.file('t-plan.json', HANDOFFS.plan),
      validator: fx.builtArtifact('fsteam'),
      resolver: fx.file('t-findings.json', HANDOFFS.findings),
    };
  });
  afterAll(() => fx.dispose());

  it("a validator's substrate request carries no mutating tool", () => {
    const script = fx.script({ steps: [{ text: 'reviewed', output: DELIVERABLES.validator }] });
    const { result } = invokeAs('validator', script);
    expect(result.status).toBe('completed');
    const received = script.received();
    expect(received).toHaveLength(1);
    const names = received[0]!.tools.map((t) => t.name);
    expect(names).toContain('workspace__read_text_file');
    expect(names).toContain('notes__list_directory');
    for (const tool of MUTATING_FS_TOOLS) {
      expect(names).not.toContain(`workspace__${tool}`);
      expect(names).not.toContain(`notes__${tool}`);
    }
    expect(received[0]!.removedTools).toEqual(expect.arrayContaining(['Bash', 'Edit', 'Write']));
    // Fresh context: the validator's conversation is the task and the artifact handoff, nothing else.
    expect(received[0]!.messages).toHaveLength(1);
    expect(received[0]!.messages[0]!.content).toContain('"claims"');
    expect(received[0]!.messages[0]!.content).not.toContain('assumptions');
  });

  it('a scripted validator calling a mutating tool anyway is rejected at execution and journaled; its reads run', () => {
    const target = join(fx.project, 'validator-wrote-this.txt');
    const script = fx.script({
      steps: [
        {
          text: 'let me read, then fix it myself',
          tool_calls: [
            { name: 'workspace__read_text_file', input: { path: join(fx.project, 'notes.txt') } },
            { name: 'workspace__write_file', input: { path: target, content: 'patched' } },
          ],
        },
        { text: 'reported', output: DELIVERABLES.validator },
      ],
    });
    const { result } = invokeAs('validator', script);
    expect(result.status).toBe('completed');
    expect(result.meta.denials).toEqual([
      { tool: 'workspace__write_file', reason: 'not_in_session_tool_set' },
    ]);
    expect(existsSync(target)).toBe(false);
    const [read, write] = script.received()[0]!.toolResults;
    expect(read).toMatchObject({ name: 'workspace__read_text_file', isError: false });
    expect(read!.output).toContain('Καλημέρα from the project');
    expect(write).toMatchObject({ name: 'workspace__write_file', isError: true, denied: true });
    const denials = fx
      .journal(['--type', 'denial'])
      .entries.filter((e) => e.session === result.meta.session_id);
    expect(denials).toHaveLength(1);
    expect(denials[0]!.title).toContain('workspace__write_file');
    expect(fx.journalText(['--type', 'denial'])).toContain(
      'workspace__write_file refused to validator at execution',
    );
  });

  it("a builder's mutating call runs for real (the same executor, a different locked set)", () => {
    const target = join(fx.project, 'built.txt');
    const script = fx.script({
      steps: [
        {
          text: 'writing',
          tool_calls: [{ name: 'workspace__write_file', input: { path: target, content: 'नमस्ते' } }],
        },
        { text: 'built', output: DELIVERABLES.builder },
      ],
    });
    const { result } = invokeAs('builder', script);
    expect(result.status).toBe('completed');
    expect(result.meta.denials).toEqual([]);
    expect(readFileSync(target, 'utf8')).toBe('नमस्ते');
    expect(script.received()[0]!.tools.map((t) => t.name)).toContain('workspace__write_file');
  });

  const OPERATIONAL = [
    'notes__read_file',
    'notes__read_text_file',
    'notes__read_media_file',
    'notes__read_multiple_files',
    'notes__list_directory',
    'notes__list_directory_with_sizes',
    'notes__list_allowed_directories',
    'notes__directory_tree',
    'notes__search_files',
    'notes__get_file_info',
  ];

  it.each(['explorer', 'planner', 'builder', 'validator', 'resolver', 'general', 'observer'])(
    "an operational read-only server's tools are present in every role: %s",
    (role) => {
      const deliverable = DELIVERABLES[role];
      const script = fx.script({ steps: [{ text: 'ok', ...(deliverable ? { output: deliverable } : {}) }] });
      const { result } = invokeAs(role, script);
      expect(result.status, `${role}: ${result.meta.detail ?? ''}`).toBe('completed');
      const names = script.received()[0]!.tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(OPERATIONAL));
      const mutating = names.filter((n) => MUTATING_FS_TOOLS.some((t) => n.endsWith(`__${t}`)));
      expect(mutating.length > 0).toBe(['builder', 'resolver', 'general'].includes(role));
    },
    60_000,
  );

  it('refuses at load a profile whose operational server could mutate while it allows a read-only role (exit 2, naming the field)', () => {
    const bad = {
      ...ALL_ROLES_PROFILE,
      persona: 'leaky',
      servers: { workspace: { command: process.execPath, args: [FS_SERVER, fx.project] } },
      mcp_servers: { operational: ['workspace'] },
    };
    writeFileSync(join(fx.home, 'personas', 'leaky.yaml'), stringify(bad));
    const run = fx.invoke([
      '--persona',
      'leaky',
      '--role',
      'builder',
      '--surface',
      'audit',
      '--engagement',
      'agent',
      '--task',
      'x',
      '--substrate',
      'scripted:/never.yaml',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('mcp_servers.operational.0');
    expect(run.stderr).toMatch(/operational server "workspace" has mutating tools, which role "explorer"/);
  });
});
