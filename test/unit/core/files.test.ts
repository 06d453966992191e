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

/**
 * Holds the lock on `target` until `release()` is called; resolves once it holds it. The holder
 * ends on the test's word, not after a fixed time, so a loaded machine cannot reorder the steps.
 */
async function hold(target: string): Promise<{ release: () => Promise<void> }> {
  let held!: () => void;
  let letGo!: () => void;
  const holding = new Promise<void>((resolve) => {
    held = resolve;
  });
  const done = withFileLock(target, async () => {
    held();
    await new Promise<void>((resolve) => {
      letGo = resolve;
    });
  });
  await holding;
  return {
    release: async () => {
      letGo();
      await done;
    },
  };
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
    const { release } = await hold(target);
    const waiting = withFileLock(target, async () => 'got it', { waitMs: 30_000 });
    await sleep(200); // the waiter has found the lock taken and is retrying
    await release();
    await expect(waiting).resolves.toBe('got it');
  });

  it('gives up with LOCK_TIMEOUT once waitMs has passed', async () => {
    const target = join(work.dir, 'timeout');
    const { release } = await hold(target);
    const started = Date.now();
    await expect(withFileLock(target, async () => 'never', { waitMs: 300 })).rejects.toMatchObject({
      code: 'LOCK_TIMEOUT',
    });
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(290);
    // The holder never lets go before the end of the test: giving up at all is the proof; the
    // ceiling is only far below "forever" (timers run late on a loaded machine).
    expect(waited).toBeLessThan(10_000);
    // waitMs 0 means "do not wait", not "wait forever" (retry's own reading of a 0 maxRetryTime).
    await expect(withFileLock(target, async () => 'never', { waitMs: 0 })).rejects.toMatchObject({
      code: 'LOCK_TIMEOUT',
    });
    await release();
  });
});
