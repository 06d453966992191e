import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createMind,
  MIND_SERVER_TOOL_NAMES,
  Mind,
  packetSchema,
  renderPacketMarkdown,
} from '../../../src/mind/index.js';
import { createFirstlight } from '../../../src/servers/index.js';
import { exampleHomeCopy, tempDir } from '../../helpers/index.js';

const REQUIRED_KEYS = [
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

function memoryHome(files: Record<string, string>): { home: string; dispose: () => void } {
  const t = tempDir();
  mkdirSync(join(t.dir, 'memory'), { recursive: true });
  mkdirSync(join(t.dir, 'persona'), { recursive: true });
  writeFileSync(join(t.dir, 'persona', 'agent_system.md'), 'FULL VOICE CONTRACT\n');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(t.dir, 'memory', name), text);
  return { home: t.dir, dispose: t.dispose };
}

describe('MIND_SERVER_TOOL_NAMES', () => {
  it('names exactly the tools the composition root gives the server, in its order', () => {
    const h = exampleHomeCopy();
    const firstlight = createFirstlight({ home: h.dir });
    try {
      const registered = firstlight.tools({ sessionKey: 'test' }).map((t) => t.name);
      expect(MIND_SERVER_TOOL_NAMES).toEqual(registered);
    } finally {
      firstlight.close();
      h.dispose();
    }
  });
});

describe('Mind.bootstrap', () => {
  const temps: (() => void)[] = [];
  afterEach(() => {
    for (const dispose of temps.splice(0)) dispose();
  });

  it('returns the operating packet the seed specifies', async () => {
    const h = memoryHome({
      'MEMORY.md': '# Index\n- [Brandon](user_brandon.md) - sponsor context\n',
      'user_brandon.md': '---\nname: Brandon\ntype: user\n---\nUser profile',
      'running_commitments.md': '---\nname: Commitments\ntype: project\n---\n- Ship bootstrap',
      'carry_forward.md': '---\nname: Carry\ntype: session\n---\n- Continue context work',
    });
    temps.push(h.dispose);
    const mind = new Mind({
      home: h.home,
      toolNames: ['bootstrap_session', 'observe', 'reflect', 'recall'],
    });
    const packet = await mind.bootstrap({ sessionId: 's1' });
    expect(packet.schema_version).toBe(1);
    expect(packet.session_id).toBe('s1');
    expect(packet.mind_contract).toBe('FULL VOICE CONTRACT\n');
    expect(packet.mind_contract_available).toBe(true);
    expect(packet.degraded_mode).toEqual({ mind_contract_available: true, reasons: [], causes: {} });
    expect(packet.required_first_call).toBe('bootstrap_session');
    expect(packet.available_mind_tools).toEqual(['bootstrap_session', 'observe', 'recall', 'reflect']);
    expect(packet.context.open_commitments).toEqual(['Ship bootstrap']);
    expect(packet.context.recent_carry_forward).toEqual(['Continue context work']);
    expect(packet.context.people).toEqual([{ name: 'Brandon', description: '' }]);
    expect(packet.memory_catalog.total_count).toBe(4);
    expect(packet.memory_catalog.index_present).toBe(true);
    expect(packet.memory_catalog.category_counts.user).toBe(1);
    expect(packet.host_limitations[0]).toContain('FastMCP instructions');
    for (const key of REQUIRED_KEYS) expect(packet).toHaveProperty(key);
    expect(Object.keys(packet)[0]).toBe('resumption');
    expect(packetSchema.safeParse(packet).success).toBe(true);
    expect(packet.budget.chars).toBe(JSON.stringify(packet).length);
  });

  it('marks a missing contract as degraded with a reason', async () => {
    const h = memoryHome({ 'MEMORY.md': '# Index\n' });
    temps.push(h.dispose);
    writeFileSync(join(h.home, 'persona', 'agent_system.md'), '@include missing.md\n');
    const packet = await new Mind({ home: h.home }).bootstrap();
    expect(packet.mind_contract_available).toBe(false);
    expect(packet.degraded_mode.mind_contract_available).toBe(false);
    expect(packet.degraded_mode.reasons.some((r) => r === 'mind contract unavailable')).toBe(true);
    expect(packet.mind_contract).toMatch(/^ERROR: firstlight mind contract failed to assemble: missing file/);
  });

  it('counts 205 notes and 1 user without exposing any filename', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 205; i++)
      files[`memory_${String(i).padStart(3, '0')}.md`] = '---\nname: M\ntype: note\n---\nbody';
    files['user_brandon.md'] = '---\nname: Brandon\ntype: user\n---\nbody';
    const h = memoryHome(files);
    temps.push(h.dispose);
    const packet = await new Mind({ home: h.home }).bootstrap({ sessionId: 's1' });
    expect(packet.memory_catalog.total_count).toBe(206);
    expect(packet.memory_catalog.category_counts).toEqual({ note: 205, user: 1 });
    expect(packet.memory_catalog).not.toHaveProperty('files');
    const text = JSON.stringify(packet);
    expect(text).not.toContain('memory_0');
    expect(text).not.toContain('user_brandon');
  });

  it('skips malformed memory files and reports them as a degraded reason', async () => {
    const h = memoryHome({
      'good.md': '---\nname: Good\ntype: note\n---\nok',
      'bad-yaml.md': '---\nname: [unclosed\n---\nbody',
      'binary.md': 'abc\u0000def',
    });
    temps.push(h.dispose);
    writeFileSync(join(h.home, 'memory', 'huge.md'), 'x'.repeat(1024 * 1024 + 10));
    const mind = new Mind({ home: h.home });
    const packet = await mind.bootstrap();
    expect(packet.memory_catalog.category_counts).toEqual({ note: 1 });
    expect(packet.memory_catalog.skipped_count).toBe(3);
    expect(packet.degraded_mode.reasons.join('\n')).toContain('3 file(s) skipped');
    const problems = mind.memory.snapshot().problems.map((p) => p.problem);
    expect(problems.some((p) => p.includes('not valid YAML'))).toBe(true);
    expect(problems).toContain('binary content');
    expect(problems.some((p) => p.startsWith('too large'))).toBe(true);
  });

  it('sees files added by another writer (directory mtime) without a watcher', async () => {
    const h = memoryHome({ 'a.md': '---\ntype: note\n---\n' });
    temps.push(h.dispose);
    const mind = new Mind({ home: h.home });
    expect(mind.catalog().total_count).toBe(1);
    writeFileSync(join(h.home, 'memory', 'b.md'), '---\ntype: user\nname: B\n---\n');
    expect(mind.catalog().category_counts).toEqual({ note: 1, user: 1 });
  });

  it('keeps the catalog the same size at 100 and 2,000 memories (only count digits differ)', async () => {
    const sizes: string[] = [];
    for (const n of [100, 2000]) {
      const files: Record<string, string> = {};
      for (let i = 0; i < n; i++)
        files[`m${i}.md`] = `---\nname: M${i}\ntype: note\ntags: [t${i % 7}]\n---\nbody`;
      const h = memoryHome(files);
      temps.push(h.dispose);
      sizes.push(JSON.stringify(new Mind({ home: h.home }).catalog()).replace(/\d+/g, '#'));
    }
    expect(sizes[1]).toBe(sizes[0]);
  });

  it('records time since the previous session', async () => {
    const h = exampleHomeCopy();
    temps.push(h.dispose);
    let now = new Date('2026-11-20T10:00:00Z');
    const mind = createMind({ home: h.dir, clock: () => now });
    expect((await mind.bootstrap({ sessionId: 'first' })).context.last_session).toBeNull();
    now = new Date('2026-11-22T10:00:00Z');
    const second = createMind({ home: h.dir, clock: () => now });
    const last = (await second.bootstrap({ sessionId: 'second' })).context.last_session;
    expect(last?.session_id).toBe('first');
    expect(last?.human).toBe('2 days ago');
  });
});

describe('renderPacketMarkdown', () => {
  it('stays within the budget and truncates the contract with a pointer to get_system_prompt', async () => {
    const h = exampleHomeCopy();
    try {
      writeFileSync(
        join(h.dir, 'persona', 'agent_system.md'),
        `# Big\n\n${'A sentence of the contract. '.repeat(800)}`,
      );
      const packet = await createMind({ home: h.dir }).bootstrap({ preview: true });
      const md = renderPacketMarkdown(packet, { maxChars: 8000 });
      expect(md.length).toBeLessThanOrEqual(8000);
      expect(md).toContain('call get_system_prompt() for the full text');
      expect(md).toContain('## Active context');
    } finally {
      h.dispose();
    }
  });

  it("demotes the persona's own headings below the packet's sections, leaving fenced code alone", async () => {
    const h = exampleHomeCopy();
    try {
      writeFileSync(
        join(h.dir, 'persona', 'agent_system.md'),
        '# Ada\n\nIntro.\n\n## Voice\n\nPlain.\n\n```md\n# not a heading\n## nor this\n```\n\n#### Deep\n\n##### Deeper\n\n###### Deepest\n',
      );
      const packet = await createMind({ home: h.dir }).bootstrap({ preview: true });
      expect(packet.mind_contract).toContain('\n## Voice\n');
      const md = renderPacketMarkdown(packet);
      const headings = md.split('\n').filter((l) => /^#{1,6} /.test(l));
      expect(headings.filter((l) => /^#{1,2} /.test(l))).toEqual([
        '# firstlight: session bootstrap',
        '## Mind contract',
        '# not a heading',
        '## nor this',
        '## Relevant memories',
        '## Active context',
        '## Memory',
        '## Per-turn protocol',
        '## Guidance',
      ]);
      expect(md).toContain('\n### Ada\n');
      expect(md).toContain('\n#### Voice\n');
      expect(md).toContain('\n###### Deep\n');
      // Past ###### markdown has no level: the deepest headings stay at six.
      expect(md).toContain('\n###### Deeper\n');
      expect(md).toContain('\n###### Deepest\n');
      expect(md).toContain('```md\n# not a heading\n## nor this\n```');
    } finally {
      h.dispose();
    }
  });

  it('leaves no runs of blank lines: an empty taskspace description, blank-line runs in the contract', async () => {
    const h = exampleHomeCopy();
    try {
      writeFileSync(join(h.dir, 'persona', 'agent_system.md'), '# Ada\n\n\n\nIntro.\n   \n\t\nMore.\n\n\n');
      const packet = await createMind({ home: h.dir }).bootstrap({ preview: true });
      packet.taskspace = { name: 'Retries', description: '', initial_prompt: null };
      const md = renderPacketMarkdown(packet);
      expect(md).not.toMatch(/\n[ \t]*\n[ \t]*\n/);
      expect(md).toContain('### Ada\n\nIntro.\n\nMore.');
      expect(md.endsWith('## Taskspace: Retries')).toBe(true);
      packet.taskspace = { name: 'Retries', description: '## Goal\n\nFewer retries.', initial_prompt: 'Go' };
      const withText = renderPacketMarkdown(packet);
      expect(withText).toMatch(/## Taskspace: Retries\n\n### Goal\n\nFewer retries\.\n\nInitial task: Go$/);
    } finally {
      h.dispose();
    }
  });
});

describe('relevant_memories', () => {
  const memo = (name: string, type: string, extra = '') =>
    `---\nname: ${name}\ntype: ${type}\ndescription: ${name.toLowerCase()} said plainly\n${extra}---\nBody of ${name}.\n`;

  it("names the instructions in force, this project's first, never proposed or superseded ones, and the same from the hook's quick overview", async () => {
    const h = exampleHomeCopy();
    const project = tempDir('fl-relevant-project-');
    try {
      mkdirSync(join(project.dir, '.firstlight'), { recursive: true });
      writeFileSync(
        join(project.dir, '.firstlight', 'project.json'),
        '{"id":"p-relevant","name":"relevant"}\n',
      );
      const memory = join(h.dir, 'memory');
      writeFileSync(
        join(memory, 'feedback_project_rule.md'),
        memo('Project rule', 'feedback', 'project_id: p-relevant\n'),
      );
      writeFileSync(
        join(memory, 'feedback_proposed.md'),
        memo('Proposed rule', 'feedback', 'status: proposed\n'),
      );
      writeFileSync(
        join(memory, 'caution_old.md'),
        memo('Old caution', 'caution', 'superseded_by: New caution\n'),
      );
      writeFileSync(
        join(memory, 'feedback_other.md'),
        memo('Other project rule', 'feedback', 'project_id: p-other\n'),
      );
      const names = async (quick: boolean) => {
        const mind = createMind({ home: h.dir, projectDir: project.dir, quickMemoryOverview: quick });
        try {
          const packet = await mind.bootstrap({ preview: true });
          return { packet, names: packet.relevant_memories?.instructions.map((m) => m.name) ?? [] };
        } finally {
          mind.close();
        }
      };
      const full = await names(false);
      expect(full.names[0]).toBe('Project rule');
      expect(full.names).toContain('Force push caution');
      for (const hidden of ['Proposed rule', 'Old caution', 'Other project rule'])
        expect(full.names).not.toContain(hidden);
      expect(JSON.stringify(full.packet.relevant_memories)).not.toMatch(/\.md\b/);
      // The first quick run builds the manifest, the second reads the persisted overview.
      expect((await names(true)).names).toEqual(full.names);
      expect((await names(true)).names).toEqual(full.names);
      expect(packetSchema.safeParse(full.packet).success).toBe(true);
    } finally {
      project.dispose();
      h.dispose();
    }
  });
});
