/**
 * core's atomic writes and cross-process locks, across real processes: several hosts run several
 * servers on one home, and none may lose another's write or read a torn file.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../helpers/index.js';

const CORE = pathToFileURL(join(REPO_ROOT, 'dist', 'core', 'index.js')).href;

/** A child process that increments the counter in `file` `times` times, each under the lock. */
const INCREMENTER = `
import { readFileSync } from 'node:fs';
import { withFileLock, writeFileAtomically } from ${JSON.stringify(CORE)};
const [file, times] = [process.argv[1], Number(process.argv[2])];
for (let i = 0; i < times; i++) {
  await withFileLock(file, async () => {
    let n = 0;
    try { n = Number(readFileSync(file, 'utf8')); } catch {}
    // Yield between read and write so an unlocked version would interleave and lose updates.
    await new Promise((r) => setTimeout(r, Math.random() * 3));
    await writeFileAtomically(file, String(n + 1).padStart(4096, ' '));
  });
}
`;

function run(file: string, times: number): Promise<number | null> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', INCREMENTER, file, String(times)], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve) => child.once('exit', resolve));
}

describe('core files across processes', () => {
  it('N processes incrementing one counter under the lock lose no update, and readers never see a torn file', async () => {
    const t = tempDir();
    try {
      const file = join(t.dir, 'counter.txt');
      const [processes, times] = [4, 25];
      const done = Promise.all(Array.from({ length: processes }, () => run(file, times)));
      let finished = false;
      void done.then(() => {
        finished = true;
      });
      // Read while they write: every read is a whole, padded number (atomic rename), or no file yet.
      let reads = 0;
      while (!finished) {
        try {
          const text = readFileSync(file, 'utf8');
          expect(text.length).toBe(4096);
          expect(Number.isInteger(Number(text))).toBe(true);
          reads++;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
        await new Promise((r) => setTimeout(r, 1));
      }
      expect(await done).toEqual(Array(processes).fill(0));
      expect(Number(readFileSync(file, 'utf8'))).toBe(processes * times);
      expect(reads).toBeGreaterThan(0);
      // No temp file or lock directory is left behind.
      expect(readdirSync(t.dir)).toEqual(['counter.txt']);
    } finally {
      t.dispose();
    }
  });
});
