/**
 * The mind's must-show cases, run the same over both transports: the built CLI as a
 * stdio server, and `serve --http` with an SDK client over streamable HTTP. Each home is built
 * once and shared; each transport starts one server per home.
 */
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  exampleHomeCopy,
  startHttpServer,
  structured,
  tempDir,
  textOf,
  type Wired,
  wireHttp,
  wireStdio,
} from '../helpers/index.js';

const FIVE = ['bootstrap_session', 'context', 'get_system_prompt', 'list_memory_files', 'read_memory_file'];
/** Files of the home layout itself, which the persona contract names on purpose. */
const LAYOUT_FILES = new Set(['MEMORY.md', 'running_commitments.md', 'carry_forward.md']);

interface Packet {
  schema_version: number;
  session_id: string | null;
  mind_contract: string;
  mind_contract_available: boolean;
  available_mind_tools: string[];
  context: { people: { name: string; description: string }[] };
  memory_catalog: { total_count: number; category_counts: Record<string, number> };
  degraded_mode: { reasons: string[] };
}

const TRANSPORTS: { name: string; open: (home: string) => Promise<Wired> }[] = [
  { name: 'stdio', open: (home) => wireStdio(['serve', '--home', home]) },
  {
    name: 'streamable HTTP',
    open: async (home) => {
      const server = await startHttpServer(['--home', home]);
      const wired = await wireHttp(server.url);
      const close = async () => {
        await wired.close();
        await server.stop();
      };
      return { ...wired, close, [Symbol.asyncDispose]: close };
    },
  },
];

/** Every memory filename of a home, with and without `.md`, except the layout files. */
function memoryFilenames(home: string): string[] {
  return readdirSync(join(home, 'memory'))
    .filter((f) => f.endsWith('.md') && !LAYOUT_FILES.has(f))
    .flatMap((f) => [f, f.replace(/\.md$/, '')]);
}

function expectNoFilename(home: string, result: unknown): void {
  const everything = JSON.stringify(result);
  for (const name of memoryFilenames(home)) expect(everything, name).not.toContain(name);
}

// The example home plus two people recorded without `name:`: one labelled by its description,
// one with nothing to show (left out).
const example = exampleHomeCopy();
writeFileSync(
  join(example.dir, 'memory', 'user_priya_unnamed.md'),
  '---\ntype: user\ndescription: Priya runs the data platform on-call rotation and reviews schema changes\n---\nPrefers async review.\n',
);
writeFileSync(join(example.dir, 'memory', 'user_blank_unnamed.md'), '---\ntype: user\n---\nNothing else.\n');
const outside = tempDir();
writeFileSync(join(outside.dir, 'secret.md'), '---\ntype: note\n---\nnot yours\n');
symlinkSync(join(outside.dir, 'secret.md'), join(example.dir, 'memory', 'link_out.md'));

// A home whose contract includes a missing file, with 205 notes and 1 user, none of them named.
const degraded = tempDir();
mkdirSync(join(degraded.dir, 'persona'), { recursive: true });
mkdirSync(join(degraded.dir, 'memory'), { recursive: true });
writeFileSync(join(degraded.dir, 'persona', 'agent_system.md'), '# Persona\n@include missing.md\n');
for (let i = 0; i < 205; i++) {
  writeFileSync(
    join(degraded.dir, 'memory', `memory_${String(i).padStart(3, '0')}.md`),
    `---\ntype: note\n---\nbody ${i}`,
  );
}
writeFileSync(join(degraded.dir, 'memory', 'user_brandon.md'), '---\ntype: user\n---\nbody');

afterAll(() => {
  example.dispose();
  outside.dispose();
  degraded.dispose();
});

describe.each(TRANSPORTS)('mind over $name (built CLI, SDK Client)', ({ open }) => {
  let onExample: Wired;
  let onDegraded: Wired;
  beforeAll(async () => {
    [onExample, onDegraded] = await Promise.all([open(example.dir), open(degraded.dir)]);
  });
  afterAll(async () => {
    await Promise.all([onExample?.close(), onDegraded?.close()]);
  });

  it('lists the five tools and returns the packet with them', async () => {
    const { tools } = await onExample.client.listTools();
    const names = tools.map((t) => t.name).sort();
    for (const name of FIVE) expect(names).toContain(name);
    const result = await onExample.client.callTool({
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

  it('names people without a frontmatter name by their description, never by file', async () => {
    const result = await onExample.client.callTool({
      name: 'bootstrap_session',
      arguments: { session_id: 's2' },
    });
    expect(structured<Packet>(result).context.people.map((p) => p.name)).toEqual([
      'Alex Rivera',
      'Priya runs the data platform on-call…',
      'Sam Okafor',
    ]);
    expectNoFilename(example.dir, result);
    expectNoFilename(example.dir, await onExample.client.callTool({ name: 'context', arguments: {} }));
  });

  it('refuses memory paths that leave memory/, each with a clear error', async () => {
    for (const [name, why] of [
      ['../firstlight.yaml', '".." would leave memory/'],
      ['/etc/passwd', 'absolute paths are not allowed'],
      ['link_out.md', 'symlink whose target is outside memory/'],
    ]) {
      const result = await onExample.client.callTool({ name: 'read_memory_file', arguments: { name } });
      expect(result.isError, name).toBe(true);
      expect(textOf(result)).toContain(why);
      expect(textOf(result)).toContain('fix:');
      expect(textOf(result)).not.toContain('not yours');
    }
  });

  it('reports a broken contract identically in the packet and get_system_prompt', async () => {
    const packet = structured<Packet>(
      await onDegraded.client.callTool({ name: 'bootstrap_session', arguments: { session_id: 's1' } }),
    );
    expect(packet.mind_contract_available).toBe(false);
    expect(packet.degraded_mode.reasons.some((r) => r === 'mind contract unavailable')).toBe(true);
    const prompt = await onDegraded.client.callTool({ name: 'get_system_prompt', arguments: {} });
    expect(textOf(prompt)).toBe(packet.mind_contract);
    expect(textOf(prompt)).toMatch(
      /^ERROR: firstlight mind contract failed to assemble: missing file persona\/missing\.md/,
    );
  });

  it('counts 205 notes and 1 user and shows no memory filename anywhere', async () => {
    const result = await onDegraded.client.callTool({
      name: 'bootstrap_session',
      arguments: { session_id: 's1' },
    });
    const packet = structured<Packet>(result);
    expect(packet.memory_catalog.total_count).toBe(206);
    expect(packet.memory_catalog.category_counts).toEqual({ note: 205, user: 1 });
    expect(packet.context.people).toEqual([]);
    expectNoFilename(degraded.dir, result);
  });
});
