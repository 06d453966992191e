import { copyFileSync, cpSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, run, tempDir } from '../helpers/index.js';

/**
 * The project's Biome rules (biome.json and the GritQL plugins in lint/) are proven on planted
 * violations: each test writes files into a copy of the config and runs `biome lint` on them.
 */

/** Which folders each folder under src/ may import (biome.json's noRestrictedImports says the same). */
const ALLOWED: Record<string, string[]> = {
  core: [],
  mind: ['core', 'resume', 'guidance'],
  resume: ['core'],
  guidance: ['core'],
  host: ['core', 'mind', 'resume'],
  hub: ['core'],
  repl: ['core', 'hub'],
  runtime: ['core', 'hub', 'mind'],
  servers: ['core', 'mind', 'resume', 'guidance', 'hub', 'repl', 'runtime'],
  ui: ['core', 'mind', 'resume', 'host', 'runtime', 'servers', 'capture'],
  cli: ['core', 'mind', 'resume', 'guidance', 'host', 'hub', 'repl', 'runtime', 'servers', 'ui', 'capture'],
  client: ['runtime'],
  capture: ['core', 'mind', 'resume', 'runtime'],
};
/**
 * Light faces: files inside a folder that the named folders may import instead of its index.ts
 * (the hooks run on every tool call and must stay small; the mind's observation code, which the
 * hooks load, takes only core's globs, text analysis and state-file helpers; the CLI's hook
 * entry takes the host's hook runner without the rest of the host index; the runtime service
 * is a face of its own, so the mind's server never loads the runtime).
 */
const LIGHT_FACES: Record<string, string[]> = {
  'core/glob/index.js': ['host', 'mind'],
  'core/text/index.js': ['mind'],
  'core/confine.js': ['mind'],
  'resume/transcripts/index.js': ['host', 'capture'],
  'capture/queue/index.js': ['host'],
  'mind/bootstrap-record/index.js': ['host'],
  'mind/cautions/index.js': ['host'],
  'mind/observation/index.js': ['host'],
  'servers/runtime-service/index.js': ['cli', 'client'],
  'host/hook/index.js': ['cli'],
};

type Diagnostic = { category: string; location: { path: string; start: { line: number } } };

let scratch: { dir: string; dispose: () => void };
let found: string[] = [];

/** `path:line category` of every diagnostic Biome reports on the planted tree. */
async function lintTree(files: Record<string, string>): Promise<string[]> {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(scratch.dir, path)), { recursive: true });
    writeFileSync(join(scratch.dir, path), text);
  }
  const ran = await run(
    join(REPO_ROOT, 'node_modules', '.bin', 'biome'),
    ['lint', '--reporter=json', '--max-diagnostics=none', '.'],
    { cwd: scratch.dir },
  );
  const report = JSON.parse(ran.stdout) as { diagnostics: Diagnostic[] };
  return report.diagnostics.map((d) => `${d.location.path}:${d.location.start.line} ${d.category}`);
}

/** One file per folder importing every other folder's index.ts and a file inside it, a line each. */
function plantedImports(): { files: Record<string, string>; expected: string[] } {
  const files: Record<string, string> = {};
  const expected: string[] = [];
  for (const [folder, allowed] of Object.entries(ALLOWED)) {
    const lines: string[] = [];
    const flag = (spec: string, bad: boolean) => {
      lines.push(`import '${spec}';`);
      if (bad) expected.push(`src/${folder}/planted.ts:${lines.length} lint/style/noRestrictedImports`);
    };
    for (const other of Object.keys(ALLOWED)) {
      if (other === folder) continue;
      flag(`../${other}/index.js`, !allowed.includes(other));
      flag(`../${other}/inner.js`, true);
    }
    for (const [face, users] of Object.entries(LIGHT_FACES))
      if (!face.startsWith(`${folder}/`)) flag(`../${face}`, !users.includes(folder));
    files[`src/${folder}/planted.ts`] = `${lines.join('\n')}\n`;
  }
  return { files, expected };
}

const planted = plantedImports();
beforeAll(async () => {
  scratch = tempDir('firstlight-lint-');
  copyFileSync(join(REPO_ROOT, 'biome.json'), join(scratch.dir, 'biome.json'));
  cpSync(join(REPO_ROOT, 'lint'), join(scratch.dir, 'lint'), { recursive: true });
  const casts = 'export const a = 1 as unknown as string;\nexport const b = 2 as never;\n';
  const writes = [
    "// process.stdout.write('fine in a comment')",
    "console.log('to stdout');",
    "process.stdout.write('to stdout');",
    "console.error('to stderr');",
    "process.stderr.write('to stderr');",
    'process.exit(1);',
    '',
  ].join('\n');
  const syncSpawns = [
    "import { spawn, spawnSync } from 'node:child_process';",
    "import { execFileSync } from 'node:child_process';",
    'export { spawn, spawnSync, execFileSync };',
    '',
  ].join('\n');
  const vitestOptions = [
    "import { describe, it } from 'vitest';",
    "it('options last', () => {}, { timeout: 5 });",
    "describe.skip('options last', () => {}, { timeout: 5 });",
    "it('options second', { timeout: 5 }, () => {});",
    "it('a timeout number last', () => {}, 5);",
    '',
  ].join('\n');
  found = await lintTree({
    'test/vitest-options.test.ts': vitestOptions,
    ...planted.files,
    'src/casts.ts': casts,
    'test/casts.ts': casts,
    'src/mind/writes.ts': writes,
    'src/cli/writes.ts': writes,
    'src/host/writes.ts': writes,
    'src/host/hook/emit.ts': writes,
    'test/sync-spawn.ts': syncSpawns,
    'test/hosts/capture-hook.mjs': syncSpawns,
  });
});
afterAll(() => scratch.dispose());

const at = (file: string) =>
  found.filter((d) => d.startsWith(`${file}:`) && !d.endsWith('noRestrictedImports')).sort();

describe('Biome rules on planted violations', () => {
  it('lint/no-type-escapes.grit refuses as-unknown-as and as-never casts in src/ and leaves test/ alone', () => {
    expect(at('src/casts.ts')).toEqual(['src/casts.ts:1 plugin', 'src/casts.ts:2 plugin']);
    expect(at('test/casts.ts')).toEqual([]);
  });

  it('noRestrictedImports: a folder imports another only through its index.ts, and only along the allowed direction', () => {
    const imports = found
      .filter((d) => d.startsWith('src/') && d.endsWith('lint/style/noRestrictedImports'))
      .sort();
    expect(imports).toEqual([...planted.expected].sort());
  });

  it('lint/no-stdout.grit: nothing outside src/cli (and src/host, stricter) writes to stdout, the protocol', () => {
    expect(at('src/mind/writes.ts')).toEqual(['src/mind/writes.ts:2 plugin', 'src/mind/writes.ts:3 plugin']);
    expect(at('src/cli/writes.ts')).toEqual([]);
  });

  it('lint/host-quiet.grit: src/host writes or exits only through hook/emit.ts', () => {
    expect(at('src/host/writes.ts')).toEqual([2, 3, 4, 5, 6].map((n) => `src/host/writes.ts:${n} plugin`));
    expect(at('src/host/hook/emit.ts')).toEqual([]);
  });

  it('noRestrictedImports: no synchronous spawn in test/ (it blocks the vitest worker), but for the hook recorder', () => {
    const syncs = (file: string) => found.filter((d) => d.startsWith(`${file}:`)).sort();
    expect(syncs('test/sync-spawn.ts')).toEqual([
      'test/sync-spawn.ts:1 lint/style/noRestrictedImports',
      'test/sync-spawn.ts:2 lint/style/noRestrictedImports',
    ]);
    expect(syncs('test/hosts/capture-hook.mjs')).toEqual([]);
  });

  it('lint/vitest-options-second.grit: options go second in a test, never an object after the function (issue 38)', () => {
    expect(at('test/vitest-options.test.ts')).toEqual([
      'test/vitest-options.test.ts:2 plugin',
      'test/vitest-options.test.ts:3 plugin',
    ]);
  });

  it('covers every folder under src/', () => {
    const folders = readdirSync(join(REPO_ROOT, 'src')).filter((n) =>
      statSync(join(REPO_ROOT, 'src', n)).isDirectory(),
    );
    expect(folders.sort()).toEqual(Object.keys(ALLOWED).sort());
  });
});
