import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exampleHomeCopy,
  runCli,
  structured,
  tempDir,
  textOf,
  type Wired,
  wireStdio,
} from '../helpers/index.js';

const FIVE = ['bootstrap_session', 'context', 'get_system_prompt', 'list_memory_files', 'read_memory_file'];

interface Packet {
  schema_version: number;
  session_id: string | null;
  mind_contract: string;
  mind_contract_available: boolean;
  available_mind_tools: string[];
  memory_catalog: { total_count: number; category_counts: Record<string, number> };
  degraded_mode: { reasons: string[] };
}

describe('mind over stdio (built CLI, SDK Client)', () => {
  const home = exampleHomeCopy();
  let wired: Wired;
  beforeAll(async () => {
    wired = await wireStdio(['serve', '--home', home.dir]);
  });
  afterAll(async () => {
    await wired.close();
    home.dispose();
  });

  it('lists the mind tools and returns the packet', async () => {
    const { tools } = await wired.client.listTools();
    const names = tools.map((t) => t.name).sort();
    for (const name of FIVE) expect(names).toContain(name);
    const result = await wired.client.callTool({
      name: 'bootstrap_session',
      arguments: { session_id: 's1' },
    });
    const packet = structured<Packet>(result);
    expect(JSON.parse(textOf(result))).toEqual(packet);
    expect(packet.schema_version).toBe(1);
    expect(packet.session_id).toBe('s1');
    expect(packet.mind_contract_available).toBe(true);
    expect(packet.mind_contract).toContain('You are Wren');
    expect(packet.available_mind_tools).toEqual(names);
  });

  it('serves the legacy three calls', async () => {
    const prompt = await wired.client.callTool({ name: 'get_system_prompt', arguments: {} });
    expect(textOf(prompt)).toContain('# Wren — mind contract');
    const context = structured<{ open_commitments: string[]; people: { name: string }[] }>(
      await wired.client.callTool({ name: 'context', arguments: {} }),
    );
    expect(context.open_commitments).toContain('Ship the invoice queue consumer with an idempotency key');
    expect(context.people.map((p) => p.name)).toEqual(['Alex Rivera', 'Sam Okafor']);
    const list = structured<{ files: { file: string }[] }>(
      await wired.client.callTool({ name: 'list_memory_files', arguments: {} }),
    );
    expect(list.files.map((f) => f.file)).toContain('user_alex.md');
    const read = structured<{ body: string }>(
      await wired.client.callTool({ name: 'read_memory_file', arguments: { name: 'user_alex.md' } }),
    );
    expect(read.body).toContain('Alex leads the portal team');
  });

  it('refuses memory paths that leave memory/, each with a clear error', async () => {
    for (const [name, why] of [
      ['../firstlight.yaml', '".." would leave memory/'],
      ['/etc/passwd', 'absolute paths are not allowed'],
    ]) {
      const result = await wired.client.callTool({ name: 'read_memory_file', arguments: { name } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain(why);
    }
  });
});

describe('mind over stdio on a degraded home', () => {
  const t = tempDir();
  let wired: Wired;
  beforeAll(async () => {
    mkdirSync(join(t.dir, 'persona'), { recursive: true });
    mkdirSync(join(t.dir, 'memory'), { recursive: true });
    writeFileSync(join(t.dir, 'persona', 'agent_system.md'), '# Persona\n@include missing.md\n');
    for (let i = 0; i < 205; i++) {
      writeFileSync(
        join(t.dir, 'memory', `memory_${String(i).padStart(3, '0')}.md`),
        `---\nname: M${i}\ntype: note\n---\nbody ${i}`,
      );
    }
    writeFileSync(join(t.dir, 'memory', 'user_brandon.md'), '---\nname: Brandon\ntype: user\n---\nbody');
    wired = await wireStdio(['serve', '--home', t.dir]);
  });
  afterAll(async () => {
    await wired.close();
    t.dispose();
  });

  it('reports the broken contract identically in the packet and get_system_prompt', async () => {
    const packet = structured<Packet>(
      await wired.client.callTool({ name: 'bootstrap_session', arguments: { session_id: 's1' } }),
    );
    expect(packet.mind_contract_available).toBe(false);
    expect(packet.degraded_mode.reasons.some((r) => r.startsWith('mind contract unavailable'))).toBe(true);
    const prompt = await wired.client.callTool({ name: 'get_system_prompt', arguments: {} });
    expect(textOf(prompt)).toBe(packet.mind_contract);
    expect(textOf(prompt)).toMatch(
      /^ERROR: firstlight mind contract failed to assemble: missing file persona\/missing\.md/,
    );
  });

  it('counts 205 notes and 1 user and never shows a filename', async () => {
    const result = await wired.client.callTool({
      name: 'bootstrap_session',
      arguments: { session_id: 's1' },
    });
    const packet = structured<Packet>(result);
    expect(packet.memory_catalog.total_count).toBe(206);
    expect(packet.memory_catalog.category_counts).toEqual({ note: 205, user: 1 });
    const everything = JSON.stringify(result);
    expect(everything).not.toMatch(/memory_\d{3}/);
    expect(everything).not.toContain('user_brandon');
  });
});

describe('firstlight packet and init', () => {
  it('prints the packet as JSON and as markdown within 8,000 characters', () => {
    const home = exampleHomeCopy();
    try {
      const json = runCli(['packet', '--home', home.dir, '--session-id', 'cli']);
      expect(json.status).toBe(0);
      expect(JSON.parse(json.stdout).session_id).toBe('cli');
      const md = runCli(['packet', '--home', home.dir, '--format', 'markdown']);
      expect(md.status).toBe(0);
      expect(md.stdout.length).toBeLessThanOrEqual(8001);
      expect(md.stdout).toContain('## Mind contract');
      const bad = runCli(['packet', '--home', home.dir, '--format', 'yaml']);
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain('--format must be json or markdown');
    } finally {
      home.dispose();
    }
  });

  it('init scaffolds a home and refuses to overwrite a non-empty one', () => {
    const t = tempDir();
    try {
      const dir = join(t.dir, 'home');
      const first = runCli(['init', '--home', dir]);
      expect(first.status).toBe(0);
      expect(runCli(['packet', '--home', dir]).stdout).toContain('"mind_contract_available": true');
      const second = runCli(['init', '--home', dir]);
      expect(second.status).toBe(2);
      expect(second.stderr).toContain('--force');
    } finally {
      t.dispose();
    }
  });
});
