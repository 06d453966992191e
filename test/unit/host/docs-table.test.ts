import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderHostFormatTable } from '../../../src/host/index.js';
import { REPO_ROOT } from '../../helpers/index.js';

describe('docs/hosts.md host-format table', () => {
  it('matches the table generated from the adapter registry (regenerate: npm run docs:hosts)', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'hosts.md'), 'utf8');
    const match = /<!-- host-table:begin[^>]*-->\n([\s\S]*?)\n<!-- host-table:end -->/.exec(doc);
    expect(match, 'docs/hosts.md lacks the host-table markers').not.toBeNull();
    expect(match![1]).toBe(renderHostFormatTable());
  });
});
