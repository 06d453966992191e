/**
 * The CLI starts light: each command loads its own modules only. A loader hook records every
 * module file the built CLI loads; the bundle's files are mapped back to the sources they hold
 * (esbuild heads each module with a `// src/…` or `// node_modules/…` comment). `--help` loads
 * the entry alone, a command's help commander and the declarations; `status`, `recall` and
 * `memory list` load neither the MCP SDK, the persona runtime, the servers nor the installer;
 * `install` does load the installer (the detector sees what it should).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, exampleHomeCopy, run, runCliAsync, tempDir } from '../helpers/index.js';

const ENTRY = process.env.FIRSTLIGHT_CLI ?? CLI;

const cleanup: (() => void)[] = [];
afterAll(() => {
  for (const dispose of cleanup.splice(0)) dispose();
});

let hooks: string;
let requireHook: string;
let home: string;
let project: string;
beforeAll(() => {
  const t = tempDir('firstlight-cli-start-');
  cleanup.push(t.dispose);
  const h = exampleHomeCopy();
  cleanup.push(h.dispose);
  home = h.dir;
  project = join(t.dir, 'project');
  mkdirSync(join(project, '.git'), { recursive: true });
  writeFileSync(
    join(t.dir, 'hooks.mjs'),
    [
      "import { appendFileSync } from 'node:fs';",
      'export async function load(url, context, next) {',
      "  if (url.startsWith('file:')) appendFileSync(process.env.LOADED_LOG, url + '\\n');",
      '  return next(url, context);',
      '}',
    ].join('\n'),
  );
  // The hook and recall entries are CommonJS bundles, required (no ES loader hook sees them).
  writeFileSync(
    join(t.dir, 'record.cjs'),
    [
      "const { appendFileSync } = require('node:fs');",
      "const { pathToFileURL } = require('node:url');",
      "const Module = require('node:module');",
      'const compile = Module.prototype._compile;',
      'Module.prototype._compile = function (content, filename) {',
      "  appendFileSync(process.env.LOADED_LOG, pathToFileURL(filename).href + '\\n');",
      '  return compile.call(this, content, filename);',
      '};',
      // The built-ins loaded by the end (to the log, or to stdout when there is none: `node -e 0`).
      "process.on('exit', () => {",
      "  const list = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).join('\\n');",
      '  if (process.env.BUILTINS_LOG) appendFileSync(process.env.BUILTINS_LOG, list);',
      '  else process.stdout.write(list);',
      '});',
    ].join('\n'),
  );
  requireHook = join(t.dir, 'record.cjs');
  hooks = join(t.dir, 'register.mjs');
  writeFileSync(
    hooks,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(t.dir, 'hooks.mjs')).href)});\n`,
  );
});

/** The sources a run of the CLI loaded: `src/cli/run.ts`, `node_modules/commander`, … */
async function sourcesLoaded(args: string[], entry = ENTRY): Promise<string[]> {
  return (await loaded(args, entry)).sources;
}

/** The sources a run loaded, and the Node built-ins it loaded beyond those `node -e 0` loads. */
async function loaded(
  args: string[],
  entry = ENTRY,
  // The ES loader hook starts the ES module loader itself: a CommonJS-only run is recorded without it.
  esmHook = true,
): Promise<{ sources: string[]; builtins: string[] }> {
  const dir = tempDir('firstlight-cli-start-log-').dir;
  const log = join(dir, 'loaded.txt');
  const builtinsLog = join(dir, 'builtins.txt');
  writeFileSync(log, '');
  await new Promise<void>((resolve, reject) => {
    const flags = [...(esmHook ? ['--import', hooks] : []), '--require', requireHook];
    const child = spawn(process.execPath, [...flags, entry, ...args], {
      cwd: project,
      env: { ...process.env, LOADED_LOG: log, BUILTINS_LOG: builtinsLog, FIRSTLIGHT_HOME: home },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`)),
    );
  });
  const sources = new Set<string>();
  for (const url of readFileSync(log, 'utf8').split('\n').filter(Boolean)) {
    const file = fileURLToPath(url);
    const text = readFileSync(file, 'utf8');
    const heads = [...text.matchAll(/^\/\/ ((?:src|node_modules)\/\S+)$/gm)].map((m) => m[1]!);
    // A bundle file with no module in it holds esbuild's own helpers (__commonJS, __toESM).
    const runtime = heads.length === 0 && /__commonJS|__toESM/.test(text) ? ['(bundle helpers)'] : [file];
    for (const head of heads.length > 0 ? heads : runtime) sources.add(packageOf(head));
  }
  const base = new Set(await builtinsOfNodeAlone());
  const builtins = readFileSync(builtinsLog, 'utf8')
    .split('\n')
    .filter((m) => m && !base.has(m));
  return { sources: [...sources].sort(), builtins };
}

let nodeAlone: string[] | undefined;
/** The built-in modules `node -e 0` loads (with the recording hooks' own). */
async function builtinsOfNodeAlone(): Promise<string[]> {
  if (!nodeAlone) {
    const r = await run(process.execPath, ['--require', requireHook, '-e', '0'], {
      env: {
        ...process.env,
        LOADED_LOG: join(tempDir('firstlight-cli-start-log-').dir, 'x'),
        BUILTINS_LOG: '',
      },
    });
    nodeAlone = r.stdout.split('\n').filter(Boolean);
  }
  return nodeAlone;
}

/** `node_modules/@scope/name/…` → `node_modules/@scope/name`; a source file stays as it is. */
function packageOf(path: string): string {
  const m = /^node_modules\/(@[^/]+\/[^/]+|[^/]+)/.exec(path);
  return m ? `node_modules/${m[1]}` : path;
}

const HEAVY = [
  /^node_modules\/@modelcontextprotocol\/sdk/,
  /^src\/runtime\//,
  /^src\/servers\//,
  /^src\/host\/install\/installer\.ts$/,
];
const heavyIn = (sources: string[]) => sources.filter((s) => HEAVY.some((re) => re.test(s)));

describe('the CLI starts light', { timeout: 60_000 }, () => {
  it('--help and --version load the entry alone: the help was rendered at build time', async () => {
    for (const flag of ['--help', '--version']) {
      expect(await sourcesLoaded([flag]), flag).toEqual([
        '(bundle helpers)',
        'src/cli/fast-answers.ts',
        'src/cli/main.ts',
      ]);
    }
  });

  it('the help printed without commander is what commander prints', async () => {
    const fast = await runCliAsync(['--help']);
    const full = await runCliAsync(['help']);
    expect(fast.status).toBe(0);
    expect(fast.stdout).toMatch(/^Usage: firstlight \[options\] \[command\]\n/);
    expect(full.stdout.startsWith(fast.stdout)).toBe(true);
    expect(full.stdout.slice(fast.stdout.length)).toMatch(/^\nDocumentation topics/);
  });

  it('a command’s --help loads commander and the command declarations only', async () => {
    const sources = await sourcesLoaded(['memory', '--help']);
    const outside = sources.filter((s) => !s.startsWith('src/cli/') && s !== 'node_modules/commander');
    // src/core/text/closest.ts: the near-name suggestions for a mistyped command (no other core).
    expect(outside).toEqual(['(bundle helpers)', 'src/core/text/closest.ts', 'src/host/ids.ts']);
    expect(sources).toContain('node_modules/commander');
  });

  it.each([[['status']], [['recall', 'squash merges']], [['memory', 'list']]])(
    'firstlight %s loads neither the MCP SDK, the runtime, the servers nor the installer',
    async (args) => {
      const sources = await sourcesLoaded(args);
      expect(heavyIn(sources)).toEqual([]);
      expect(sources.some((s) => s.startsWith('src/mind/'))).toBe(true);
    },
  );

  it('the firstlight command (the bin) answers recall, --help and --version without the ES module loader', async () => {
    const bin = join(dirname(ENTRY), 'firstlight.cjs');
    // Twice: the first recall stamps the saved index, the second answers from it.
    for (const _ of [1, 2]) await loaded(['recall', 'squash merges'], bin, false);
    const recall = await loaded(['recall', 'squash merges'], bin, false);
    expect(recall.builtins.filter((m) => m.includes('/esm/'))).toEqual([]);
    expect(heavyIn(recall.sources)).toEqual([]);
    // The saved index answered: no YAML parser, no commander, no lock or atomic-write package.
    for (const name of ['yaml', 'commander', 'proper-lockfile', 'write-file-atomic'])
      expect(recall.sources, name).not.toContain(`node_modules/${name}`);
    for (const flag of ['--help', '--version']) {
      const answer = await loaded([flag], bin, false);
      expect(
        answer.builtins.filter((m) => m.includes('/esm/')),
        flag,
      ).toEqual([]);
      expect(answer.sources, flag).toEqual(['src/cli/fast-answers.ts', 'src/cli/launch.ts']);
    }
    // Anything else is main.js, as before.
    const status = await loaded(['status'], bin);
    expect(status.sources).toContain('src/cli/main.ts');
    const env = { ...process.env, FIRSTLIGHT_HOME: home };
    const viaMain = await runCliAsync(['recall', 'squash merges', '--json'], { env, cwd: project });
    const viaBin = await run(process.execPath, [bin, 'recall', 'squash merges', '--json'], {
      env,
      cwd: project,
    });
    expect(viaBin.stdout).toBe(viaMain.stdout);
    expect(JSON.parse(viaBin.stdout).results.length).toBeGreaterThan(0);
    const unknown = await run(process.execPath, [bin, 'nonsense'], { env: process.env });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'nonsense'/);
  });

  it('install loads the installer (the detector sees a heavy module when one loads)', async () => {
    const sources = await sourcesLoaded(['install', 'claude', '--dry-run']);
    expect(heavyIn(sources)).toContain('src/host/install/installer.ts');
  });
});
