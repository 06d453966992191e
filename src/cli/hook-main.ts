/**
 * The command the installed hooks run: `node …/dist/cli/hook.cjs EVENT [--host HOST] [--home DIR]`
 * (`firstlight hook` with the same arguments, minus the CLI). Built as CommonJS on its own
 * (scripts/bundle.mjs): Node starts a CommonJS entry without its ES module loader, a good part of
 * what a hook added to a bare `node -e 0`. Arguments the hook does not take are bad usage (exit
 * 2, which also blocks the tool: the gate fails closed); `firstlight hook --help` says more.
 */
import { runHookFast } from './hook-entry.js';

const argv = process.argv.slice(2);
runHookFast(argv).then((code) => {
  if (code !== null) {
    process.exitCode = code;
    return;
  }
  process.stderr.write(
    `firstlight hook: cannot read the arguments "${argv.join(' ')}": expected EVENT [--host HOST] [--home DIR] (see firstlight hook --help)\n`,
  );
  process.exitCode = 2;
});
