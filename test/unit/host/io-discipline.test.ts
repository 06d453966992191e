import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../helpers/index.js';

const HOST_SRC = join(REPO_ROOT, 'src', 'host');
/** The one module allowed to write: hooks answer through it. */
const EMITTER = 'hook/emit.ts';
const STRAY =
  /\b(?:console\.(?:log|info|warn|error|debug)|process\.(?:stdout|stderr)\.write|process\.exit\s*\()/;

/** Lines that write to stdout/stderr or exit, outside comments. */
function strayWrites(source: string): number[] {
  return source
    .split('\n')
    .map((line, i) => [line.replace(/\/\/.*$/, '').replace(/^\s*\*.*$/, ''), i + 1] as const)
    .filter(([line]) => STRAY.test(line))
    .map(([, n]) => n);
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('host I/O discipline', () => {
  it('no module in src/host writes stdout/stderr or exits, except the emitter', () => {
    const offenders = files(HOST_SRC)
      .filter((f) => relative(HOST_SRC, f) !== EMITTER)
      .flatMap((f) => strayWrites(readFileSync(f, 'utf8')).map((n) => `${relative(REPO_ROOT, f)}:${n}`));
    expect(offenders).toEqual([]);
  });

  it('the emitter is where the writes are', () => {
    expect(strayWrites(readFileSync(join(HOST_SRC, EMITTER), 'utf8')).length).toBeGreaterThan(0);
  });

  it('the detector catches a planted violation and ignores comments', () => {
    const planted =
      "export function handler() {\n  // process.stdout.write('fine in a comment')\n  console.log('leak');\n}\n";
    expect(strayWrites(planted)).toEqual([3]);
    expect(strayWrites("process.stderr.write('x')")).toEqual([1]);
  });
});
