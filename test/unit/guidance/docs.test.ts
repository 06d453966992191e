import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../../src/core/index.js';
import { createGuidance, embeddedGuidanceDir, loadGuidance } from '../../../src/guidance/index.js';
import { tempDir } from '../../helpers/index.js';

const temps: (() => void)[] = [];
afterEach(() => {
  for (const dispose of temps.splice(0)) dispose();
});

function dir(files: Record<string, string>): string {
  const t = tempDir('firstlight-guidance-');
  temps.push(t.dispose);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(t.dir, name), text);
  return t.dir;
}

const doc = (name: string, extra = '', body = `# ${name}\n\nBody of ${name}.`) =>
  `---\nname: ${name}\ndescription: about ${name}\ndirective: Apply ${name}.\n${extra}---\n${body}\n`;

describe('embedded guidance', () => {
  it('ships collaboration patterns, coding guidelines and the walkthrough format, each complete', () => {
    const files = readdirSync(embeddedGuidanceDir()).filter((f) => f.endsWith('.md'));
    const { docs, problems } = loadGuidance([{ dir: embeddedGuidanceDir(), source: 'embedded' }]);
    expect(problems).toEqual([]);
    expect(docs.map((d) => d.name)).toEqual([
      'collaboration-patterns',
      'coding-guidelines',
      'walkthrough-format',
    ]);
    expect(docs).toHaveLength(files.length);
    for (const d of docs) {
      // Standard frontmatter: the YAML starts on the line right after the opening `---`.
      expect(d.text, d.file).toMatch(/^---\nname: [a-z-]+\n/);
      const { data } = parseFrontmatter(d.text);
      expect(data.name, d.file).toBe(d.name);
      expect(typeof data.description, d.file).toBe('string');
      expect(typeof data.directive, d.file).toBe('string');
      expect(d.directive.length, d.name).toBeGreaterThan(80);
      // A directive travels in every packet, which has an 8,000-char budget.
      expect(d.directive.length, d.name).toBeLessThan(400);
      expect(d.body.length, d.name).toBeGreaterThan(3000);
      expect(d.uri).toBe(`firstlight://guidance/${d.name}`);
    }
  });
});

describe('loadGuidance layers', () => {
  it('replaces a same-named doc, adds new names, and orders by order then name', () => {
    const embedded = dir({ 'a.md': doc('alpha', 'order: 10\n'), 'b.md': doc('beta', 'order: 20\n') });
    const home = dir({ 'beta.md': doc('beta', 'order: 20\n', 'HOME BETA'), 'zeta.md': doc('zeta') });
    const project = dir({ 'x.md': doc('beta', 'order: 5\n', 'PROJECT BETA'), 'gamma.md': doc('gamma') });
    const { docs } = loadGuidance([
      { dir: embedded, source: 'embedded' },
      { dir: home, source: 'home' },
      { dir: project, source: 'project' },
    ]);
    expect(docs.map((d) => [d.name, d.source])).toEqual([
      ['beta', 'project'],
      ['alpha', 'embedded'],
      ['gamma', 'project'],
      ['zeta', 'home'],
    ]);
    expect(docs[0]?.body).toBe('PROJECT BETA');
  });

  it('removes a doc with enabled: false', () => {
    const embedded = dir({ 'a.md': doc('alpha'), 'b.md': doc('beta') });
    const project = dir({ 'beta.md': '---\nname: beta\nenabled: false\n---\n' });
    const { docs } = loadGuidance([
      { dir: embedded, source: 'embedded' },
      { dir: project, source: 'project' },
    ]);
    expect(docs.map((d) => d.name)).toEqual(['alpha']);
  });

  it('skips and reports a malformed override, keeping the doc it would have replaced', () => {
    const embedded = dir({ 'a.md': doc('alpha') });
    const project = dir({
      'alpha.md': '---\nname: [unclosed\n---\nbroken',
      'Bad Name.md': '---\nname: Bad Name\n---\nx',
      'typed.md': '---\nname: typed\ndirective: 42\n---\nx',
      'notes.txt': 'ignored: not markdown',
    });
    const { docs, problems } = loadGuidance([
      { dir: embedded, source: 'embedded' },
      { dir: project, source: 'project' },
    ]);
    expect(docs.map((d) => [d.name, d.source])).toEqual([['alpha', 'embedded']]);
    expect(problems.map((p) => p.file.split('/').pop()).sort()).toEqual([
      'Bad Name.md',
      'alpha.md',
      'typed.md',
    ]);
    expect(problems.find((p) => p.file.endsWith('typed.md'))?.problem).toContain(
      '"directive" must be a string',
    );
    expect(problems.find((p) => p.file.endsWith('Bad Name.md'))?.problem).toContain('"name"');
  });

  it('falls back to the file name, the first heading and a generic directive', () => {
    const project = dir({ 'release-notes.md': '# Release Notes\n\nWrite them for users.\n' });
    const { docs } = loadGuidance([{ dir: project, source: 'project' }]);
    expect(docs[0]).toMatchObject({ name: 'release-notes', title: 'Release Notes', description: '' });
    expect(docs[0]?.directive).toContain('Release Notes');
  });

  it('treats a missing directory as an empty layer', () => {
    const { docs, problems } = loadGuidance([{ dir: '/nonexistent/firstlight/guidance', source: 'home' }]);
    expect(docs).toEqual([]);
    expect(problems).toEqual([]);
  });
});

describe('Guidance overrides from home and project', () => {
  it('reads <home>/guidance then <project>/.firstlight/guidance, found by walking up', () => {
    const home = tempDir();
    const project = tempDir();
    temps.push(home.dispose, project.dispose);
    mkdirSync(join(home.dir, 'guidance'));
    writeFileSync(
      join(home.dir, 'guidance', 'coding-guidelines.md'),
      doc('coding-guidelines', '', 'HOME RULES'),
    );
    writeFileSync(
      join(home.dir, 'guidance', 'walkthrough-format.md'),
      doc('walkthrough-format', '', 'HOME WALK'),
    );
    mkdirSync(join(project.dir, '.firstlight', 'guidance'), { recursive: true });
    mkdirSync(join(project.dir, 'src', 'deep'), { recursive: true });
    writeFileSync(
      join(project.dir, '.firstlight', 'guidance', 'cg.md'),
      doc('coding-guidelines', '', 'PROJECT RULES'),
    );
    const g = createGuidance({ home: home.dir, projectDir: join(project.dir, 'src', 'deep') });
    expect(g.doc('coding-guidelines').body).toBe('PROJECT RULES');
    expect(g.doc('walkthrough-format').body).toBe('HOME WALK');
    expect(g.doc('collaboration-patterns').source).toBe('embedded');
    expect(g.doc('firstlight://guidance/coding-guidelines.md').source).toBe('project');
    expect(() => g.doc('nope')).toThrow(/no guidance doc named "nope"/);
  });

  it('reports skipped overrides as a degraded reason in the packet section', () => {
    const home = tempDir();
    temps.push(home.dispose);
    mkdirSync(join(home.dir, 'guidance'));
    writeFileSync(join(home.dir, 'guidance', 'broken.md'), '---\nname: "Not A Slug"\n---\n');
    const section = createGuidance({ home: home.dir }).guidanceSection();
    expect(section.value?.map((e) => e.name)).toEqual([
      'collaboration-patterns',
      'coding-guidelines',
      'walkthrough-format',
    ]);
    expect(section.reason).toContain('1 guidance file(s) skipped');
    expect(section.reason).toContain('broken.md');
  });
});
