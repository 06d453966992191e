import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { queueCapture, runQueue } from '../../src/capture/index.js';
import { startCaptureWorker, workerLockTarget, workerRunning } from '../../src/capture/queue/index.js';
import { withFileLock } from '../../src/core/index.js';
import { REPO_ROOT, tempDir } from '../helpers/index.js';

const MAIN = join(REPO_ROOT, 'dist', 'cli', 'main.js');

const job = (session: string) => ({
  session,
  host: 'claude',
  transcript: null,
  format: 'claude' as const,
  cwd: null,
  event: 'stop',
  queued_at: new Date().toISOString(),
});

describe('capture queue: one worker at a time (issue 36: Claude Code fires Stop every turn)', () => {
  it('starts no second worker while one holds the lock, and the holder takes the job', async () => {
    const place = tempDir('fl-capture-queue-');
    try {
      const home = place.dir;
      mkdirSync(join(home, 'memory'));
      await withFileLock(
        workerLockTarget(home),
        async () => {
          expect(workerRunning(home)).toBe(true);
          for (const turn of [1, 2, 3]) {
            queueCapture(home, job(`turn-${turn}`));
            expect(startCaptureWorker(home, {}, MAIN)).toBe('running');
          }
        },
        { staleMs: 60_000 },
      );
      expect(workerRunning(home)).toBe(false);
      // The three jobs wait for the next worker (here: this one, as `firstlight capture` runs it).
      expect(readdirSync(join(home, 'capture', 'queue')).filter((f) => f.endsWith('.json'))).toHaveLength(3);
      const reports = await runQueue({ home, wait: true });
      expect(reports?.map((r) => r.session).sort()).toEqual(['turn-1', 'turn-2', 'turn-3']);
      // With nobody holding the lock, a Stop starts one.
      queueCapture(home, job('after'));
      expect(startCaptureWorker(home, { ...process.env, FIRSTLIGHT_HOME: '' }, MAIN)).toBe('started');
      const rest = (await runQueue({ home, wait: true })) ?? [];
      const log = join(home, 'capture', 'log.jsonl');
      expect(existsSync(log)).toBe(true);
      // Either the started worker or this wait took the job, once.
      expect(rest.filter((r) => r.session === 'after').length).toBeLessThanOrEqual(1);
      expect(existsSync(join(home, 'capture', 'queue', 'after.json'))).toBe(false);
      expect(startCaptureWorker(home, { FIRSTLIGHT_CAPTURE_WORKER: 'off' }, MAIN)).toBe('off');
    } finally {
      place.dispose();
    }
  });
});
