// Bundles the CLI entry after tsc: dist/cli/main.js becomes one file that loads its commands
// from chunks beside it (dist/cli/chunks/), esbuild's code splitting keeping every `await
// import()` lazy. The hooks run on every tool call and every session start, and Node spends
// more of their start-up resolving and compiling a few hundred small modules than running them.
import { build } from 'esbuild';

const external = process.env.FIRSTLIGHT_BUNDLE_EXTERNAL === '1';
await build({
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: 'dist/cli',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  ...(external ? { packages: 'external' } : {}),
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
  allowOverwrite: true,
  sourcemap: true,
  logLevel: 'warning',
});
