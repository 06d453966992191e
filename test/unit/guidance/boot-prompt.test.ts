import { describe, expect, it } from 'vitest';
import { assembleBootPrompt, type GuidanceDoc, type TaskspaceRead } from '../../../src/guidance/index.js';

function doc(name: string, order: number): GuidanceDoc {
  return {
    name,
    uri: `firstlight://guidance/${name}`,
    title: `Title ${name}`,
    description: `about ${name}`,
    directive: `Directive for ${name}.`,
    order,
    body: `# ${name}\n\nBODY-${name}`,
    text: `---\nname: ${name}\n---\n# ${name}\n\nBODY-${name}\n`,
    source: 'embedded',
    file: `/x/${name}.md`,
  };
}

const DOCS = [doc('first', 1), doc('second', 2)];
const FILE = '/p/.firstlight/taskspace.json';
const ok = (initial: string | null): TaskspaceRead => ({
  status: 'ok',
  file: FILE,
  taskspace: { name: 'Retries', description: 'Invoice retries', initial_prompt: initial },
  updated_at: null,
});

describe('assembleBootPrompt', () => {
  it('greets, inlines every doc with its directive in order, then the taskspace block', () => {
    const text = assembleBootPrompt({ docs: DOCS, taskspace: ok('Add backoff') });
    const positions = ['# Hi, welcome!', 'BODY-first', 'BODY-second', '<taskspace_context>'].map((s) =>
      text.indexOf(s),
    );
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    expect(text).toContain('<directive>Directive for first.</directive>');
    expect(text).toContain('<name>Retries</name>\n<description>Invoice retries</description>');
    expect(text).toContain('<initial_task>\nAdd backoff\n</initial_task>');
    expect(text).toContain('update_taskspace(name, description)');
    expect(text).not.toMatch(/load the resource/i);
  });

  it('omits the task block and tells the agent to ask when the store is missing, empty or unreadable', () => {
    const reads: (TaskspaceRead | null)[] = [
      null,
      { status: 'missing', file: FILE, taskspace: null },
      { status: 'empty', file: FILE, taskspace: null },
      { status: 'unreadable', file: FILE, taskspace: null, problem: 'not valid JSON' },
    ];
    for (const taskspace of reads) {
      const text = assembleBootPrompt({ docs: DOCS, taskspace });
      expect(text).not.toContain('<taskspace_context>');
      expect(text).toContain('Ask the user what they would like to work on');
      expect(text).toContain('BODY-second');
    }
    const broken = assembleBootPrompt({ docs: DOCS, taskspace: reads[3]! });
    expect(broken).toContain(`${FILE} could not be read: not valid JSON`);
  });

  it('tells a resumed taskspace (initial prompt taken up) to continue, not restart', () => {
    const text = assembleBootPrompt({ docs: DOCS, taskspace: ok(null) });
    expect(text).toContain('<taskspace_context>');
    expect(text).not.toContain('<initial_task>');
    expect(text).toContain('already taken up');
  });

  it('names the collaborator and is deterministic', () => {
    const a = assembleBootPrompt({ docs: DOCS, taskspace: null, collaborator: 'Alex' });
    expect(a).toContain('working with Alex');
    expect(assembleBootPrompt({ docs: DOCS, taskspace: null, collaborator: 'Alex' })).toBe(a);
    expect(assembleBootPrompt({ docs: [], taskspace: null })).not.toContain('guidance document');
  });
});
