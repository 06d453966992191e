#!/usr/bin/env node
/**
 * The `firstlight` command. Thin: parse, call a folder's index, print. Each command module is
 * imported lazily; `firstlight hook …` (run on every tool call) and `firstlight recall …` take
 * fast paths that load neither commander nor the MCP SDK, only what they run; `--help` and
 * `--version` answer from files (fast-answers.ts) before commander loads.
 */
const argv = process.argv.slice(2);
let code: number | null = null;
if (argv[0] === 'hook') {
  const { runHookFast } = (await requireEntry('./hook-entry.cjs')) as typeof import('./hook-entry.js');
  code = await runHookFast(argv.slice(1));
} else if (argv[0] === 'recall') {
  const { runRecallFast } = (await requireEntry('./recall-entry.cjs')) as typeof import('./recall-entry.js');
  code = await runRecallFast(argv.slice(1));
} else if (argv.length === 1 && ['--help', '-h', '--version', '-V'].includes(argv[0]!)) {
  const { fastAnswer } = await import('./fast-answers.js');
  const { fileURLToPath } = await import('node:url');
  code = fastAnswer(argv[0]!, fileURLToPath(new URL('.', import.meta.url)));
}
if (code === null) {
  const { runCli } = await import('./run.js');
  code = await runCli(argv);
}
process.exitCode = code;

/**
 * The hook and recall entries are CommonJS bundles (scripts/bundle.mjs), required: an import()
 * would have the ES module loader scan the whole file for its exports first (about 110 ms for
 * recall's 540 KB).
 */
async function requireEntry(path: string): Promise<unknown> {
  const { createRequire } = await import('node:module');
  return createRequire(import.meta.url)(path);
}
