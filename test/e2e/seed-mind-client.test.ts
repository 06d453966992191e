/**
 * The bootstrap packet as a client written for the persona-sati contract reads it: the same
 * assertions its own tests make (exact reason strings, `unknown` for a memory without a type,
 * exactly the ten required keys), over a real MCP client against the built CLI.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, structured, tempDir, wireStdio } from '../helpers/index.js';

// biome-ignore lint/suspicious/noExplicitAny: read as the contract's Python client reads a dict
type Packet = Record<string, any>;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A home laid out as the contract's tests lay out their memory directory. */
function home(contract: string): string {
  const t = tempDir('firstlight-seed-mind-');
  cleanups.push(t.dispose);
  const mem = join(t.dir, 'memory');
  mkdirSync(mem);
  mkdirSync(join(t.dir, 'persona'));
  writeFileSync(join(t.dir, 'persona', 'agent_system.md'), contract);
  const write = (name: string, body: string) => writeFileSync(join(mem, name), body);
  write('MEMORY.md', '# Index\n- [Brandon](user_brandon.md) - sponsor context\n');
  write('user_brandon.md', '---\nname: Brandon\ntype: user\n---\nUser profile');
  write('running_commitments.md', '---\nname: Commitments\ntype: project\n---\n- Ship bootstrap');
  write('carry_forward.md', '---\nname: Carry\ntype: session\n---\n- Continue context work');
  write('loose_note.md', 'A memory written without frontmatter.\n');
  return t.dir;
}

async function bootstrap(dir: string, args: Record<string, unknown> = {}): Promise<Packet> {
  const wired = await wireStdio(['serve', '--home', dir]);
  cleanups.push(wired.close);
  return structured<Packet>(await wired.client.callTool({ name: 'bootstrap_session', arguments: args }));
}

const REQUIRED = [
  'schema_version',
  'required_first_call',
  'mind_contract',
  'mind_contract_available',
  'available_mind_tools',
  'cognition_protocol',
  'context',
  'memory_catalog',
  'degraded_mode',
  'host_limitations',
];

describe('bootstrap_session as the persona-sati client reads it', () => {
  it('test_bootstrap_session_tool_returns_operating_packet', async () => {
    const packet = await bootstrap(home('You are the test agent.\n'), { session_id: 'test-session' });
    expect(packet.schema_version).toBe(1);
    expect(packet.required_first_call).toBe('bootstrap_session');
    expect(packet.session_id).toBe('test-session');
    expect(packet.mind_contract_available).toBe(true);
    expect(packet.mind_contract).toContain('test agent');
    for (const tool of ['observe', 'reflect', 'recall']) expect(packet.available_mind_tools).toContain(tool);
    expect(packet.memory_catalog.index_present).toBe(true);
    expect(packet.context.open_commitments).toEqual(['Ship bootstrap']);
    expect(packet.context.recent_carry_forward).toEqual(['Continue context work']);
    expect(packet.memory_catalog.category_counts.user).toBe(1);
    // A memory with no `type:` line counts as "unknown", as the contract's catalog counts it.
    expect(packet.memory_catalog.category_counts.unknown).toBe(1);
    expect('files' in packet.memory_catalog).toBe(false);
    expect(packet.degraded_mode).toMatchObject({ mind_contract_available: true, reasons: [] });
  });

  it('test_build_bootstrap_session_marks_missing_mind_contract_as_degraded', async () => {
    const packet = await bootstrap(home('# Persona\n@include missing.md\n'));
    expect(packet.mind_contract_available).toBe(false);
    expect(packet.degraded_mode.mind_contract_available).toBe(false);
    // The exact string, as a member of the list (Python's `in` on a list).
    expect(packet.degraded_mode.reasons).toContain('mind contract unavailable');
    // The cause sits beside it, keyed by the reason.
    expect(packet.degraded_mode.causes['mind contract unavailable']).toMatch(
      /missing file persona\/missing\.md/,
    );
    expect(packet.mind_contract).toMatch(/failed to assemble/);
  });

  it('the required-field test: exactly the ten keys are required, unknown fields permitted', async () => {
    const packet = await bootstrap(home('You are the test agent.\n'), { session_id: 's1' });
    for (const key of REQUIRED) expect(packet, key).toHaveProperty(key);
    expect(packet.schema_version).toBe(1);
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'schema', 'bootstrap-session.v1.json'), 'utf8'));
    expect([...schema.required].sort()).toEqual([...REQUIRED].sort());
    const validate = new AjvJsonSchemaValidator().getValidator(schema);
    // firstlight's own packet, with a future field.
    expect(validate({ ...packet, future_field: { any: 1 } }).valid).toBe(true);
    // A plain packet as the contract's reference builder returns it: the ten keys and session_id.
    const plain = {
      schema_version: 1,
      required_first_call: 'bootstrap_session',
      session_id: 's1',
      mind_contract: 'FULL VOICE CONTRACT',
      mind_contract_available: true,
      available_mind_tools: ['bootstrap_session', 'observe', 'recall', 'reflect'],
      cognition_protocol: [
        'Call bootstrap_session before the first substantive answer or external tool call.',
      ],
      context: { open_commitments: ['Ship bootstrap'], recent_carry_forward: ['Continue context work'] },
      memory_catalog: { total_count: 4, index_present: true, category_counts: { user: 1, unknown: 1 } },
      degraded_mode: { mind_contract_available: true, reasons: [] },
      host_limitations: [
        'FastMCP instructions are not reliable model context in Claude Code or Copilot CLI.',
      ],
    };
    const result = validate(plain);
    expect(result.errorMessage ?? '').toBe('');
    expect(result.valid).toBe(true);
    for (const key of REQUIRED) {
      const { [key]: _dropped, ...missing } = plain as Record<string, unknown>;
      expect(validate(missing).valid, `without ${key}`).toBe(false);
    }
  });

  it('takes null for an optional argument as absent (session_id: str | None = None), issue 38', async () => {
    const wired = await wireStdio(['serve', '--home', home('You are the test agent.\n')]);
    cleanups.push(wired.close);
    const call = (name: string) => wired.client.callTool({ name, arguments: { session_id: null } });
    const packet = structured<Packet>(await call('bootstrap_session'));
    expect(packet.session_id).toBeNull();
    expect(packet.mind_contract_available).toBe(true);
    const prompt = await call('get_system_prompt');
    expect(prompt.isError ?? false).toBe(false);
    expect(structured<Packet>(prompt).mind_contract).toContain('test agent');
    const context = await call('context');
    expect(context.isError ?? false).toBe(false);
    expect(structured<Packet>(context).open_commitments).toEqual(['Ship bootstrap']);
  });
});
