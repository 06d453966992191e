// Bundles the CLI after tsc. The hooks run on every tool call and every session start, and Node
// spent more of their start-up resolving and compiling a few hundred small modules than running
// them. Two esbuild builds, each with code splitting so every `await import()` stays lazy:
// - dist/cli/main.js: the command line, its commands in dist/cli/chunks/;
// - dist/cli/hook-entry.js: `firstlight hook`, its events in dist/cli/hook-chunks/. A build of
//   its own: splitting one graph that holds the servers too put the search engine, the glob
//   matcher and every tool's schema into the chunk SessionStart loads.
// main.js imports hook-entry.js at run time (external to the first build), so `firstlight hook`
// and the installed hook commands (`… dist/cli/main.js hook EVENT`) take the small one.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

const common = {
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Bundled CommonJS dependencies call require() for Node's built-ins and read __filename
  // (write-file-atomic names its temp files from it); ESM has neither, so each file gets them.
  banner: {
    js: [
      "import { createRequire as __flCreateRequire } from 'node:module';",
      "import { fileURLToPath as __flFileURLToPath } from 'node:url';",
      'const require = __flCreateRequire(import.meta.url);',
      'const __filename = __flFileURLToPath(import.meta.url);',
      "const __dirname = __filename.replace(/[\\\\/][^\\\\/]*$/, '');",
    ].join('\n'),
  },
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
  // main.ts and commands/hook.ts import it; both land one directory apart as in src/cli/.
  external: ['./hook-entry.js', '../hook-entry.js'],
});
await build({
  ...common,
  entryPoints: { 'hook-entry': 'src/cli/hook-entry.ts' },
  chunkNames: 'hook-chunks/[name]-[hash]',
});
// tsc's maps of the two files the bundles replaced would map the bundles' lines wrongly.
for (const name of ['main', 'hook-entry']) rmSync(`dist/cli/${name}.js.map`, { force: true });

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
