import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BLOCK_BODY, BLOCK_VERSION, renderHostFormatTable } from '../../../src/host/index.js';
import { REPO_ROOT } from '../../helpers/index.js';

/** A markdown table as rows of trimmed cells (the formatter may pad columns; content must match). */
function cells(table: string): string[][] {
  return table
    .trim()
    .split('\n')
    .map((line) =>
      line
        .trim()
        .replace(/^\||\|$/g, '')
        .split(/(?<!\\)\|/)
        .map((c) => c.trim().replace(/^-+$/, '---')),
    );
}

describe('docs/hosts.md host-format table', () => {
  it('matches the table generated from the adapter registry (regenerate: npm run docs:hosts)', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'hosts.md'), 'utf8');
    const match = /<!-- host-table:begin[^>]*-->\n([\s\S]*?)\n<!-- host-table:end -->/.exec(doc);
    expect(match, 'docs/hosts.md lacks the host-table markers').not.toBeNull();
    expect(cells(match![1]!)).toEqual(cells(renderHostFormatTable()));
  });

  it('the generated table has one row per host and six columns in every row', () => {
    const rows = cells(renderHostFormatTable());
    expect(rows).toHaveLength(2 + 6);
    for (const row of rows) expect(row).toHaveLength(6);
  });
});

describe('docs/hosts.md bootstrap block', () => {
  it('shows the block install writes, at its current version', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'hosts.md'), 'utf8');
    const lines = (text: string) => text.replace(/\n+/g, '\n');
    expect(lines(doc)).toContain(lines(BLOCK_BODY));
    expect(doc).toContain(`Version ${BLOCK_VERSION}, as written`);
  });
});
