/** bench/redact.mjs in its smoke mode: a bench that cannot run is a failing test. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/index.js';

describe('bench/redact.mjs', () => {
  it('runs in smoke mode and prints its table', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [join(REPO_ROOT, 'bench', 'redact.mjs')], {
      env: { ...process.env, BENCH_SMOKE: '1' },
      cwd: REPO_ROOT,
    });
    expect(stdout).toContain('redactor cost per event line');
    expect(stdout).toMatch(/output with 3 secrets +\d+/);
  });
});
