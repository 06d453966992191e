import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/index.js';

const SRC = join(REPO_ROOT, 'src');

// Import directions, public faces and the stdout/host I/O rules are Biome rules (biome.json,
// lint/*.grit), proven in lint.test.ts. What stays here is what a lint rule cannot see: a lint
// rule looks at the files that exist, and cannot ask for one that does not.
describe('folder boundaries', () => {
  it('gives every folder a public index.ts with a @module doc block', () => {
    for (const folder of readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isDirectory())) {
      const text = readFileSync(join(SRC, folder, 'index.ts'), 'utf8');
      expect(text, folder).toContain('@module');
    }
  });
});
