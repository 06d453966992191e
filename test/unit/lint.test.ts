import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../helpers/index.js';

const PLANTED = 'export const a = 1 as unknown as string;\nexport const b = 2 as never;\n';

describe('lint/no-type-escapes.grit', () => {
  it('refuses as-unknown-as and as-never casts in src/ and leaves test/ alone', () => {
    const t = tempDir('firstlight-lint-');
    try {
      mkdirSync(join(t.dir, 'lint'));
      for (const file of ['biome.json', join('lint', 'no-type-escapes.grit')])
        copyFileSync(join(REPO_ROOT, file), join(t.dir, file));
      for (const folder of ['src', 'test']) {
        mkdirSync(join(t.dir, folder));
        writeFileSync(join(t.dir, folder, 'planted.ts'), PLANTED);
      }
      const run = spawnSync(
        join(REPO_ROOT, 'node_modules', '.bin', 'biome'),
        ['lint', '--reporter=json', '.'],
        {
          cwd: t.dir,
          encoding: 'utf8',
        },
      );
      const report = JSON.parse(run.stdout) as {
        diagnostics: { category: string; location: { path: string; start: { line: number } } }[];
      };
      const found = report.diagnostics
        .filter((d) => d.category === 'plugin')
        .map((d) => `${d.location.path}:${d.location.start.line}`);
      expect(found).toEqual(['src/planted.ts:1', 'src/planted.ts:2']);
    } finally {
      t.dispose();
    }
  });
});
