/**
 * The examples a command's --help prints, run as written: each command's lines in one shell (so
 * `id=$(…)` carries to the next line), with `firstlight` on PATH as the built CLI, in a fresh
 * project on a copy of the example home. Issue 38: `invoke --help`'s second example failed as
 * written. Only the commands in RUNNABLE are run so far; the others' examples need what a test
 * machine lacks (a network install, Postgres, an editor, a server left running) or fixtures.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, exampleHomeCopy, run, tempDir } from '../helpers/index.js';

const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const dispose of cleanups.splice(0)) dispose();
});

/** The lines under "Examples:" in `firstlight <command> --help`. */
async function examplesOf(command: string[]): Promise<string[]> {
  const help = (await run(process.execPath, [CLI, ...command, '--help'])).stdout;
  const after = help.split(/\nExamples?:\n/)[1] ?? '';
  return after
    .split('\n')
    .filter((line) => /^ {2}\S/.test(line))
    .map((line) => line.trim());
}

/** A project, a home and a bin directory where `firstlight` is the built CLI. */
function sandbox(): { project: string; env: NodeJS.ProcessEnv } {
  const home = exampleHomeCopy();
  const user = tempDir('firstlight-examples-user-');
  const project = tempDir('firstlight-examples-project-');
  cleanups.push(home.dispose, user.dispose, project.dispose);
  mkdirSync(join(project.dir, '.git'));
  const bin = join(user.dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'firstlight'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(join(bin, 'firstlight'), 0o755);
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FIRSTLIGHT_')));
  return {
    project: project.dir,
    env: { ...env, HOME: user.dir, FIRSTLIGHT_HOME: home.dir, PATH: `${bin}:${process.env.PATH}` },
  };
}

/** Commands whose every example runs offline and exits. */
const RUNNABLE = [['invoke'], ['recall'], ['sessions'], ['events'], ['journal'], ['taskspace', 'list']];

describe('help examples run as written', () => {
  it.each(RUNNABLE.map((command) => ({ command: command.join(' '), words: command })))(
    'firstlight $command --help',
    { timeout: 120_000 },
    async ({ words }) => {
      const lines = await examplesOf(words);
      expect(lines.length).toBeGreaterThan(0);
      const { project, env } = sandbox();
      const script = [
        'set -e',
        ...lines.map((line) => `echo "+ ${line.replace(/["$`\\]/g, '\\$&')}" >&2\n${line}`),
      ].join('\n');
      const result = await run('sh', ['-c', script], { cwd: project, env, timeoutMs: 110_000 });
      expect(result.status, `${result.stderr}\n${result.stdout}`).toBe(0);
    },
  );
});
