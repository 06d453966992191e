import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withFileLock } from '../../../src/core/index.js';
import { tempDir } from '../../helpers/index.js';

let work: { dir: string; dispose: () => void };
beforeAll(() => {
  work = tempDir('firstlight-lock-');
});
afterAll(() => work.dispose());

/** Holds the lock on `target` for `ms`; resolves once it holds it, with a promise for the release. */
async function hold(target: string, ms: number): Promise<{ released: Promise<void> }> {
  let held!: () => void;
  const holding = new Promise<void>((resolve) => {
    held = resolve;
  });
  const done = withFileLock(target, async () => {
    held();
    await sleep(ms);
  });
  await holding;
  return { released: done };
}

describe('withFileLock', () => {
  it('runs one holder at a time', async () => {
    const target = join(work.dir, 'serial');
    let inside = 0;
    let overlapped = false;
    await Promise.all(
      Array.from({ length: 5 }, () =>
        withFileLock(target, async () => {
          inside++;
          if (inside > 1) overlapped = true;
          await sleep(20);
          inside--;
        }),
      ),
    );
    expect(overlapped).toBe(false);
  });

  it('waits for a holder that releases within waitMs', async () => {
    const target = join(work.dir, 'wait');
    const { released } = await hold(target, 800);
    await expect(withFileLock(target, async () => 'got it', { waitMs: 5_000 })).resolves.toBe('got it');
    await released;
  });

  it('gives up with LOCK_TIMEOUT once waitMs has passed', async () => {
    const target = join(work.dir, 'timeout');
    const { released } = await hold(target, 2_000);
    const started = Date.now();
    await expect(withFileLock(target, async () => 'never', { waitMs: 300 })).rejects.toMatchObject({
      code: 'LOCK_TIMEOUT',
    });
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(waited).toBeLessThan(1_500);
    // waitMs 0 means "do not wait", not "wait forever" (retry's own reading of a 0 maxRetryTime).
    await expect(withFileLock(target, async () => 'never', { waitMs: 0 })).rejects.toMatchObject({
      code: 'LOCK_TIMEOUT',
    });
    await released;
  });
});
