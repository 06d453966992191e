import { Command, CommanderError } from 'commander';
import { asFirstlightError, isFirstlightError } from '../core/index.js';
import { COMMANDS } from './commands/index.js';
import { packageVersionSync } from './io.js';

/**
 * Builds the program and runs it. Errors are converted once, here: a UserError prints its hint
 * and exits 2, a SystemError exits 1, a usage mistake exits 2; under --json the failure is also
 * `{"ok":false,"error":{code,message,fix,hint}}` on stdout. Returns the exit code.
 */
export async function runCli(argv: string[]): Promise<number> {
  const program = new Command('firstlight')
    .description('Every agent session starts oriented and resumes with momentum.')
    .version(packageVersionSync(), '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  for (const register of COMMANDS) register(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.exitCode === 0
      )
        return 0;
      // Bad usage (an unknown option, a missing argument): commander printed it; exit 2.
      if (argv.includes('--json'))
        writeJsonError({
          code: 'USAGE',
          message: error.message.replace(/^error: /, ''),
          hint: 'run with --help for usage',
        });
      return 2;
    }
    const failure = asFirstlightError(error);
    // --json promises JSON on stdout: a failure is an object there too.
    if (argv.includes('--json')) writeJsonError(failure);
    process.stderr.write(`firstlight: ${failure.render()}\n`);
    if (!isFirstlightError(error) && process.env.FIRSTLIGHT_LOG === 'debug') {
      process.stderr.write(`${(error as Error).stack ?? ''}\n`);
    }
    return failure.exitCode;
  }
}

/** `{"ok":false,"error":{code,message,fix}}`; `hint` repeats `fix` for readers of the older shape. */
function writeJsonError(failure: { code: string; message: string; hint?: string | undefined }): void {
  const error = {
    code: failure.code,
    message: failure.message,
    ...(failure.hint ? { fix: failure.hint, hint: failure.hint } : {}),
  };
  process.stdout.write(`${JSON.stringify({ ok: false, error })}\n`);
}
