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

/** A child process that appends `times` session-start lines to `file`, with no lock. */
const APPENDER = `
import { appendLine } from ${JSON.stringify(CORE)};
const [file, times, writer] = [process.argv[1], Number(process.argv[2]), process.argv[3]];
for (let i = 0; i < times; i++) {
  appendLine(file, JSON.stringify({ session_id: writer + '-' + i, at: new Date().toISOString() }));
}
`;

function run(
  file: string,
  times: number,
  script = INCREMENTER,
  extra: string[] = [],
): Promise<number | null> {
  const child = spawn(
    process.execPath,
    ['--input-type=module', '-e', script, file, String(times), ...extra],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
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

  it('N processes appending lines with no lock lose none and never interleave two', async () => {
    const t = tempDir();
    try {
      const file = join(t.dir, 'sessions.jsonl');
      const [processes, times] = [4, 500];
      const exits = await Promise.all(
        Array.from({ length: processes }, (_, w) => run(file, times, APPENDER, [`w${w}`])),
      );
      expect(exits).toEqual(Array(processes).fill(0));
      const lines = readFileSync(file, 'utf8').split('\n');
      expect(lines.pop()).toBe('');
      const ids = lines.map((line) => (JSON.parse(line) as { session_id: string }).session_id);
      expect(new Set(ids).size).toBe(processes * times);
    } finally {
      t.dispose();
    }
  });
});
