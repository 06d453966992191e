import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findProject } from '../../../src/guidance/index.js';
import { tempDir } from '../../helpers/index.js';

const temps: (() => void)[] = [];
afterEach(() => {
  for (const dispose of temps.splice(0)) dispose();
});

function tree(): string {
  const t = tempDir('firstlight-walk-');
  temps.push(t.dispose);
  return t.dir;
}

describe('findProject', () => {
  it('walks up to the nearest .firstlight/', () => {
    const root = tree();
    mkdirSync(join(root, 'repo', '.firstlight'), { recursive: true });
    mkdirSync(join(root, 'repo', 'a', 'b'), { recursive: true });
    const found = findProject(join(root, 'repo', 'a', 'b'));
    expect(found).toMatchObject({ dir: join(root, 'repo'), found: 'marker' });
    expect(found.taskspaceFile).toBe(join(root, 'repo', '.firstlight', 'taskspace.json'));
    expect(found.guidanceDir).toBe(join(root, 'repo', '.firstlight', 'guidance'));
  });

  it('does not mistake a firstlight home (~/.firstlight) for a project', () => {
    const root = tree();
    // A user's home directory holding the default firstlight home, with a repo below it.
    mkdirSync(join(root, '.firstlight', 'memory'), { recursive: true });
    mkdirSync(join(root, 'code', 'repo', '.git'), { recursive: true });
    expect(findProject(join(root, 'code', 'repo'))).toMatchObject({
      dir: join(root, 'code', 'repo'),
      found: 'git-root',
    });
    // Even an empty home directory is skipped when it is the configured home.
    const other = tree();
    mkdirSync(join(other, '.firstlight'));
    mkdirSync(join(other, 'w'));
    expect(findProject(join(other, 'w'), { home: join(other, '.firstlight') })).toMatchObject({
      dir: join(other, 'w'),
      found: 'start',
    });
  });

  it('ignores a file named .firstlight, and falls back to the start directory', () => {
    const root = tree();
    writeFileSync(join(root, '.firstlight'), 'not a directory');
    mkdirSync(join(root, 'x'));
    expect(findProject(join(root, 'x'))).toMatchObject({ dir: join(root, 'x'), found: 'start' });
  });
});
