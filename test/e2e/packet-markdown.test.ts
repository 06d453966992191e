/** `firstlight packet --format markdown` (what SessionStart injects): heading levels and blank lines. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exampleHomeCopy, runCli, tempDir } from '../helpers/index.js';

const cleanup: (() => unknown)[] = [];
afterEach(() => {
  while (cleanup.length) cleanup.pop()!();
});

describe('firstlight packet --format markdown', () => {
  it("nests the persona's headings under the packet's sections and leaves no runs of blank lines", async () => {
    const home = exampleHomeCopy();
    const project = tempDir('firstlight-project-');
    cleanup.push(home.dispose, project.dispose);
    mkdirSync(join(project.dir, '.git'));
    // A taskspace with a name and no description: once three blank lines in a row.
    const set = await runCli(['taskspace', '--home', home.dir, '--set-name', 'Retries'], {
      cwd: project.dir,
    });
    expect(set.status, set.stderr).toBe(0);
    const r = await runCli(['packet', '--home', home.dir, '--format', 'markdown'], { cwd: project.dir });
    expect(r.status, r.stderr).toBe(0);
    const md = r.stdout;
    const sections = md.split('\n').filter((l) => /^## /.test(l));
    expect(sections).toEqual([
      '## Mind contract',
      // The example home's feedback memories: the instructions in force (issue 36).
      '## Relevant memories',
      '## Active context',
      '## Memory',
      '## Per-turn protocol',
      '## Guidance',
      '## Taskspace: Retries',
    ]);
    // The example persona's "# Wren", "## Identity" and "### Handoff habits", one level under.
    expect(md).toMatch(/^### Wren — mind contract$/m);
    expect(md).toMatch(/^#### Identity$/m);
    expect(md).toMatch(/^##### Handoff habits$/m);
    expect(md).not.toMatch(/\n[ \t]*\n[ \t]*\n/);
    expect(md.endsWith('## Taskspace: Retries\n')).toBe(true);
  });
});
