// Bundles the CLI after tsc. The hooks run on every tool call and every session start, and Node
// spent more of their start-up resolving and compiling a few hundred small modules than running
// them.
// - dist/cli/main.js: the command line, code splitting so every `await import()` stays lazy, its
//   commands in dist/cli/chunks/;
// - dist/cli/hook.cjs: the command the installed hooks run (`node …/dist/cli/hook.cjs EVENT`),
//   CommonJS, and dist/cli/hook-entry.cjs, the same for `firstlight hook`; each imports one
//   bundle per event group (dist/cli/hook-bundles/: pre-tool-use, post-tool-use, session-start,
//   capture), so what an event loads at start is one file: its handler and everything it imports
//   statically. What an event needs only now and then (the settings parser, the glob compiler,
//   the caution table's builder) is a dynamic import, and each such module is a bundle of its own
//   in dist/cli/hook-bundles/lazy/, loaded when reached. A few modules an event imports statically
//   but calls only now and then (the parsers behind the parsed-file cache, the atomic writer, the
//   lock, node:crypto, node:child_process: ON_FIRST_USE below) are replaced by a stand-in that
//   requires them on first use. Code splitting did not do this: a module
//   both imported by the event and reachable from any dynamic import in the graph went into a
//   shared chunk, so a tool call loaded 11 files (Node resolves, reads and links each). A module
//   two bundles hold is in each (the lazy bundles hold their own copy of what they share).
// - dist/cli/recall-entry.cjs: `firstlight recall`, built the same way.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { relative } from 'node:path';
import { build } from 'esbuild';

const BANNER = [
  "import { createRequire as __flCreateRequire } from 'node:module';",
  "import { fileURLToPath as __flFileURLToPath } from 'node:url';",
  'const require = __flCreateRequire(import.meta.url);',
  'const __filename = __flFileURLToPath(import.meta.url);',
  "const __dirname = __filename.replace(/[\\\\/][^\\\\/]*$/, '');",
].join('\n');

/** `import('./hook-entry.js')` and `import('./recall-entry.js')` in main's build: their CommonJS bundles. */
const toCommonJsEntries = {
  name: 'commonjs-entries',
  setup(b) {
    b.onResolve({ filter: /^\.\.?\/(hook-entry|recall-entry)\.js$/ }, (args) => ({
      path: args.path.replace(/\.js$/, '.cjs'),
      external: true,
    }));
  },
};

// CommonJS has no import.meta: the few modules that read import.meta.url get this file's URL,
// computed when first read (node:url's public module costs a few ms to load, and most modules
// that read it do so only on a rarely taken path).
const CJS_BANNER =
  "var __flMeta = { get url() { return require('node:url').pathToFileURL(__filename).href; } };";

const HOOK_BUNDLES = ['pre-tool-use', 'post-tool-use', 'session-start', 'capture'];

/**
 * Modules the hook's bundles load on first use, synchronously. The parsers behind the
 * parsed-file cache (src/core/parsed-cache.ts): their importers call them only on a miss, so a
 * SessionStart whose settings, resumption state and guidance did not change loads neither the
 * YAML parser nor zod (together about two thirds of its bundle, and half of its JavaScript
 * time). And the atomic writer and the lock, which a hook reaches only when it writes state
 * (they load node:crypto, worker_threads, stream and signal handlers at require time). Each is a
 * lazy bundle of its own; in main.js and tsc's output they stay ordinary imports.
 */
const ON_FIRST_USE = [
  'src/core/settings.ts',
  'src/resume/self-state.ts',
  'src/core/frontmatter.ts',
  'node_modules/write-file-atomic/lib/index.js',
  'node_modules/proper-lockfile/index.js',
];
const ON_FIRST_USE_NAMES =
  /(^|\/)(settings|self-state|frontmatter)\.js$|^(write-file-atomic|proper-lockfile)$/;
/**
 * Node built-ins a hook reaches only now and then: node:crypto (a new project id, a taskspace
 * write) loads the stream modules with it, node:child_process (git, for a project not seen yet)
 * net and dgram; together about a tenth of a SessionStart that needs neither.
 */
const ON_FIRST_USE_BUILTINS = /^node:(crypto|child_process)$/;

const common = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Bundled CommonJS dependencies call require() for Node's built-ins and read __filename
  // (write-file-atomic names its temp files from it); ESM has neither, so each file gets them.
  banner: { js: BANNER },
  // jsonc-parser's `main` is a UMD build whose require('./impl/format') esbuild cannot follow;
  // its ES module build bundles.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  outdir: 'dist/cli',
  allowOverwrite: true,
  // No source maps: they tripled the package (6 MB, mostly the bundled packages' sources), and
  // Node ignores them without --enable-source-maps; the bundle is unminified, each module
  // headed by a `// src/…` comment, so a stack trace still reads.
  sourcemap: false,
  logLevel: 'warning',
};

await build({
  ...common,
  entryPoints: { main: 'src/cli/main.ts' },
  chunkNames: 'chunks/[name]-[hash]',
  // The BPE tokenizer's ranks (1.2 MB of JavaScript) load from node_modules only when a density
  // cap is counted: bundling them would copy them into dist for nothing.
  external: [
    'gpt-tokenizer',
    'gpt-tokenizer/*',
    // The Postgres client and queue load only for a postgres:// store (pg requires an optional
    // native binding by name, which a bundle cannot resolve).
    'pg',
    'pg-boss',
  ],
  // main.ts and commands/hook.ts import the hook and recall entries (CommonJS, built below), one
  // directory apart as in src/cli/.
  plugins: [toCommonJsEntries],
});
await buildHookBundles();
await buildLauncher();
// tsc's output of what the bundles replace: the CommonJS files are what runs.
for (const name of [
  'hook-entry',
  'recall-entry',
  'hook-main',
  'launch',
  ...HOOK_BUNDLES.map((n) => `hook-bundles/${n}`),
])
  for (const ext of ['.js', '.js.map', '.d.ts']) rmSync(`dist/cli/${name}${ext}`, { force: true });
rmSync('dist/cli/main.js.map', { force: true });

// `firstlight --help`, rendered once here from the same commands (tsc's dist/cli/run.js), 80
// columns wide: main.js prints it without loading commander or building the program, the one
// command people run to see what there is (src/cli/fast-answers.ts). A test compares it with
// what commander prints.
const { createProgram } = await import(new URL('../dist/cli/run.js', import.meta.url).href);
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
let help = '';
const program = createProgram(version);
program.configureOutput({ writeOut: (text) => (help += text), getOutHelpWidth: () => 80 });
program.outputHelp();
writeFileSync('dist/cli/help.txt', help);
// What the code that parsed a cached value was (src/core/parsed-cache.ts): a rebuild re-parses.
writeFileSync('dist/cli/build-id.txt', `${new Date().toISOString()} ${process.pid}\n`);

/**
 * The hook's bundles, CommonJS (`.cjs`): Node starts a CommonJS entry without its ES module
 * loader, which cost a tool call about 75M instructions of the 100M it added to `node -e 0`
 * (callgrind). dist/cli/hook.cjs is what the installed hook commands run; hook-entry.cjs the same
 * for main.js (`firstlight hook`); each imports its event's bundle, one per event group
 * (hook-bundles/*.cjs), then one per module any of them imports dynamically (and so on, until no
 * new module is reached, hook-bundles/lazy/*.cjs). Each is a single file: its static imports
 * inlined, each dynamic import a require() of the lazy bundle of that module when reached.
 */
async function buildHookBundles() {
  const lazy = new Map(); // absolute source path -> lazy bundle name
  const built = new Set();
  const lazyName = (path) =>
    relative(process.cwd(), path)
      .replace(/^(src|node_modules)\//, '')
      .replace(/\.[cm]?[jt]s$/, '')
      .replace(/[^A-Za-z0-9_-]+/g, '-');
  const toLazy = (prefix) => ({
    name: 'hook-lazy-imports',
    setup(b) {
      // A module loaded on first use: importers get a stand-in whose exports are getters that
      // require the module's own lazy bundle (external) the first time one is read.
      b.onResolve({ filter: /.*/, namespace: 'on-first-use' }, (args) => ({
        path: args.path,
        external: true,
      }));
      b.onLoad({ filter: /.*/, namespace: 'on-first-use' }, async (args) => ({
        contents: await standIn(
          args.path,
          ON_FIRST_USE_BUILTINS.test(args.path) ? args.path : `${prefix}${lazyName(args.path)}.cjs`,
        ),
        loader: 'js',
      }));
      b.onResolve({ filter: ON_FIRST_USE_BUILTINS }, (args) =>
        args.kind === 'import-statement' ? { path: args.path, namespace: 'on-first-use' } : undefined,
      );
      b.onResolve({ filter: ON_FIRST_USE_NAMES }, async (args) => {
        if (args.kind !== 'import-statement' || args.pluginData?.lazy) return undefined;
        const found = await b.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: { lazy: true },
        });
        if (found.errors.length > 0 || !ON_FIRST_USE.includes(relative(process.cwd(), found.path)))
          return undefined;
        lazy.set(found.path, lazyName(found.path));
        return { path: found.path, namespace: 'on-first-use' };
      });
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== 'dynamic-import' || args.pluginData?.lazy) return undefined;
        const bundle = /^\.\/hook-bundles\/([a-z-]+)\.js$/.exec(args.path);
        if (bundle) return { path: `./hook-bundles/${bundle[1]}.cjs`, external: true };
        const found = await b.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: { lazy: true },
        });
        if (found.errors.length > 0 || found.external) return undefined;
        const name = lazyName(found.path);
        lazy.set(found.path, name);
        return { path: `${prefix}${name}.cjs`, external: true };
      });
    },
  });
  const one = (entry, out, prefix) =>
    build({
      ...common,
      format: 'cjs',
      splitting: false,
      // import() of another bundle becomes require(): an import() would start the ES module loader.
      supported: { 'dynamic-import': false },
      // CommonJS has no import.meta; the few modules that read import.meta.url get this file's URL.
      define: { 'import.meta.url': '__flMeta.url' },
      banner: { js: CJS_BANNER },
      outExtension: { '.js': '.cjs' },
      entryPoints: { [out]: entry },
      plugins: [toLazy(prefix)],
    }).then(() => dropUnusedBanner(`dist/cli/${out}.cjs`, CJS_BANNER, /__flMeta/));
  await one('src/cli/hook-main.ts', 'hook', './hook-bundles/lazy/');
  await one('src/cli/hook-entry.ts', 'hook-entry', './hook-bundles/lazy/');
  for (const name of HOOK_BUNDLES)
    await one(`src/cli/hook-bundles/${name}.ts`, `hook-bundles/${name}`, './lazy/');
  // `firstlight recall` (main.ts's other fast path) is built the same way: one file.
  await one('src/cli/recall-entry.ts', 'recall-entry', './hook-bundles/lazy/');
  for (let pending = [...lazy]; pending.length > 0; pending = [...lazy].filter(([p]) => !built.has(p))) {
    for (const [path, name] of pending) {
      built.add(path);
      await one(path, `hook-bundles/lazy/${name}`, './');
    }
  }
}

/**
 * The `firstlight` command (package.json's bin): src/cli/launch.ts as CommonJS, which takes the
 * fast paths (recall and hook entries, required; --help and --version from fast-answers.cjs)
 * without Node's ES module loader, and imports main.js (a real import(), kept as one) for the rest.
 */
async function buildLauncher() {
  const cjs = { ...common, format: 'cjs', splitting: false, banner: { js: '#!/usr/bin/env node' } };
  await build({
    ...cjs,
    entryPoints: { firstlight: 'src/cli/launch.ts' },
    external: ['./recall-entry.cjs', './hook-entry.cjs', './fast-answers.cjs', './main.js'],
    outExtension: { '.js': '.cjs' },
  });
  await build({
    ...cjs,
    banner: {},
    entryPoints: { 'fast-answers': 'src/cli/fast-answers.ts' },
    outExtension: { '.js': '.cjs' },
  });
}

/**
 * The stand-in importers of an ON_FIRST_USE module get: CommonJS in the shape of the module's
 * exports, each a getter that requires `target` on first read. esbuild reads an import from
 * CommonJS at each use (`import_x.name`), so nothing loads until a function of the module is
 * called (or a value read).
 * - One of our ES modules: its named exports (from esbuild's metafile), marked `__esModule`.
 * - A CommonJS package or a built-in: the own keys of its module.exports, read by requiring it
 *   here; where module.exports is itself a function (write-file-atomic), the stand-in is a
 *   function that calls it. The importer takes the stand-in itself for the default export (Node's
 *   interop, which esbuild follows in a `"type": "module"` package).
 */
async function standIn(path, target) {
  if (ON_FIRST_USE_BUILTINS.test(path) || path.includes('/node_modules/')) {
    const real = createRequire(import.meta.url)(path);
    return standInText(target, Object.keys(real), { callable: typeof real === 'function' });
  }
  const result = await build({
    entryPoints: [path],
    bundle: false,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
  });
  return standInText(target, Object.values(result.metafile.outputs)[0].exports, { esModule: true });
}

function standInText(target, names, { callable = false, esModule = false }) {
  return [
    'let loaded;',
    `const load = () => (loaded ??= require(${JSON.stringify(target)}));`,
    ...(callable ? ['module.exports = function (...args) { return load().apply(this, args); };'] : []),
    ...(esModule ? ["Object.defineProperty(module.exports, '__esModule', { value: true });"] : []),
    ...names.map(
      (name) =>
        `Object.defineProperty(module.exports, ${JSON.stringify(name)}, { enumerable: true, get: () => load()[${JSON.stringify(name)}] });`,
    ),
  ].join('\n');
}

/**
 * The banner gives bundled CommonJS packages require() and __filename (an ES module has
 * neither), or a CommonJS bundle import.meta.url; a bundle that uses none leaves it out, and so
 * does not load node:module and node:url for nothing.
 */
function dropUnusedBanner(file, banner = BANNER, uses = /require\(|__filename|__dirname/) {
  const text = readFileSync(file, 'utf8');
  const body = text.replace(banner, '');
  if (!uses.test(body)) writeFileSync(file, body);
}
