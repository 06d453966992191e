/**
 * @module cli — the `firstlight` command: commander wiring in `commands/`, errors converted to
 * exit codes once in `run.ts`. `main.ts` is the executable entry.
 */
export { runCli } from './run.js';
