import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compactions, countCompaction, ledgerDir } from '../../../src/host/hook/ledger.js';
import { tempDir } from '../../helpers/index.js';

let home: { dir: string; dispose: () => void };
beforeEach(() => {
  home = tempDir('firstlight-ledger-');
});
afterEach(() => home.dispose());

describe('the compaction count', () => {
  it('loses no count when PreCompact hooks race (a locked read-modify-write)', async () => {
    await Promise.all(Array.from({ length: 12 }, () => countCompaction(home.dir, 'race-1')));
    expect(compactions(home.dir, 'race-1')).toBe(12);
  });

  it('replaces the counter by a rename: no temp file or lock is left beside it', async () => {
    await countCompaction(home.dir, 's-2');
    await countCompaction(home.dir, 's-2');
    expect(compactions(home.dir, 's-2')).toBe(2);
    expect(readdirSync(ledgerDir(home.dir))).toEqual(['s-2.compactions']);
  });

  it('counts on from what is there, and from zero when nothing is', async () => {
    expect(compactions(home.dir, 's-3')).toBe(0);
    await countCompaction(home.dir, 's-3');
    writeFileSync(join(ledgerDir(home.dir), 's-3.compactions'), '7');
    await countCompaction(home.dir, 's-3');
    expect(compactions(home.dir, 's-3')).toBe(8);
  });
});
