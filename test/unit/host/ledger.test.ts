import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimInjection, compactions, countCompaction, ledgerDir } from '../../../src/host/hook/ledger.js';
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

describe('pruning the ledger', () => {
  it('removes week-old markers and lock directories a killed hook left behind', () => {
    const dir = ledgerDir(home.dir);
    mkdirSync(join(dir, 'old.compactions.lock'), { recursive: true });
    writeFileSync(join(dir, 'old.startup'), 'then');
    const then = new Date(Date.now() - 8 * 24 * 3600 * 1000);
    for (const name of ['old.compactions.lock', 'old.startup']) utimesSync(join(dir, name), then, then);
    expect(claimInjection(home.dir, 'new', 'startup', new Date())).toBe(true);
    expect(existsSync(join(dir, 'old.compactions.lock'))).toBe(false);
    expect(readdirSync(dir)).toEqual(['new.startup']);
  });
});
