#!/usr/bin/env node
/**
 * The `firstlight` command. Thin: parse, call a folder's index, print. Each command module is
 * imported lazily; `firstlight hook …` (run on every tool call) and `firstlight recall …` take
 * fast paths that load neither commander nor the MCP SDK, only what they run.
 */
const argv = process.argv.slice(2);
let code: number | null = null;
if (argv[0] === 'hook') {
  const { runHookFast } = await import('./hook-entry.js');
  code = await runHookFast(argv.slice(1));
} else if (argv[0] === 'recall') {
  const { runRecallFast } = await import('./recall-entry.js');
  code = await runRecallFast(argv.slice(1));
}
if (code === null) {
  const { runCli } = await import('./run.js');
  code = await runCli(argv);
}
process.exitCode = code;
