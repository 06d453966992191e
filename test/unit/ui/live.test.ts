import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/core/index.js';
import type { ViewId } from '../../../src/ui/index.js';
import { LiveChanges } from '../../../src/ui/live.js';
import { tempDir } from '../../helpers/index.js';

/** The next batch of changed views, or a failure naming what was awaited. */
function nextBatch(live: LiveChanges, what: string, timeoutMs = 10_000): Promise<ViewId[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`no change seen: ${what}`));
    }, timeoutMs);
    const stop = live.onChange((views) => {
      clearTimeout(timer);
      stop();
      resolve(views);
    });
  });
}

describe('LiveChanges', () => {
  let root: { dir: string; dispose: () => void };
  let live: LiveChanges | undefined;
  beforeEach(() => {
    root = tempDir('firstlight-ui-live-');
  });
  afterEach(() => {
    live?.close();
    root.dispose();
  });

  it("sees an editor's rename-write (a temp file renamed over the file), in one batch per burst", async () => {
    const memory = join(root.dir, 'memory');
    mkdirSync(memory);
    writeFileSync(join(memory, 'a.md'), 'one');
    live = new LiveChanges([{ dir: memory, views: () => ['memory', 'wakeup'] }], {
      log: silentLogger,
      quietMs: 50,
    });
    const batch = nextBatch(live, 'rename over a.md');
    writeFileSync(join(memory, '.a.md.tmp'), 'two');
    renameSync(join(memory, '.a.md.tmp'), join(memory, 'a.md'));
    expect((await batch).sort()).toEqual(['memory', 'wakeup']);
    // The watch survives the rename: the next in-place write is seen too.
    const again = nextBatch(live, 'in-place write after the rename');
    writeFileSync(join(memory, 'a.md'), 'three');
    expect(await again).toEqual(['memory', 'wakeup']);
  });

  it('maps file names to views and ignores the rest', async () => {
    live = new LiveChanges(
      [{ dir: root.dir, views: (name) => (name === 'sessions.jsonl' ? ['sessions'] : []) }],
      { log: silentLogger, quietMs: 50 },
    );
    const batch = nextBatch(live, 'sessions.jsonl');
    writeFileSync(join(root.dir, 'noise.txt'), 'x');
    writeFileSync(join(root.dir, 'sessions.jsonl'), '{}\n');
    expect(await batch).toEqual(['sessions']);
  });

  it('waits for a directory that does not exist yet, and for one removed and made again', async () => {
    const journal = join(root.dir, 'ledger', 'journal');
    live = new LiveChanges([{ dir: journal, views: () => ['runtime'] }], { log: silentLogger, quietMs: 50 });
    const created = nextBatch(live, 'the journal directory appearing');
    mkdirSync(join(root.dir, 'ledger'));
    mkdirSync(journal);
    writeFileSync(join(journal, '2026-11-28.tsv'), 'row\n');
    expect(await created).toEqual(['runtime']);
    // Once armed on the directory itself, a write in it is seen.
    await expect
      .poll(async () => {
        const seen = nextBatch(live!, 'a row appended', 2_000).catch(() => []);
        writeFileSync(join(journal, '2026-11-28.tsv'), 'row\nrow\n');
        return seen;
      })
      .toEqual(['runtime']);
    const remade = nextBatch(live, 'the journal removed and made again');
    rmSync(journal, { recursive: true });
    mkdirSync(journal);
    writeFileSync(join(journal, '2026-11-29.tsv'), 'row\n');
    expect(await remade).toEqual(['runtime']);
  });

  it('hands a write this process made to the listeners without waiting for the watcher', async () => {
    live = new LiveChanges([], { log: silentLogger, quietMs: 10 });
    const batch = nextBatch(live, 'touch');
    live.touch(['memory']);
    expect(await batch).toEqual(['memory']);
  });
});
