import { Command, CommanderError } from 'commander';
import { COMMANDS, TOP_LEVEL_SYNONYMS } from './commands/index.js';
import { JSON_SHAPE, withExamples } from './help-text.js';
import { suggestUnknownCommands } from './suggest.js';

/**
 * The program with every command registered. Building it loads only commander and the command
 * modules' declarations: each action imports what it needs when it runs, so `--help` and a
 * mistyped command answer without loading the mind, the servers or the installer.
 */
export function createProgram(version = ''): Command {
  const program = new Command('firstlight')
    .description('Every agent session starts oriented and resumes with momentum.')
    .version(version, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  for (const register of COMMANDS) register(program);
  // Our own `help [topic]` (commands/help.ts) replaces commander's: it also prints the docs.
  program.helpCommand(false);
  suggestUnknownCommands(program, TOP_LEVEL_SYNONYMS);
  withExamples(
    program,
    [
      'firstlight init',
      'firstlight install claude && firstlight doctor',
      'firstlight call bootstrap_session',
      'firstlight help memory',
    ],
    [JSON_SHAPE, 'Every command takes --home DIR and --help; `firstlight help TOPIC` prints a doc page.'],
  );
  return program;
}

/**
 * Builds the program and runs it. Errors are converted once, here: a UserError prints its fix
 * and exits 2, a SystemError exits 1, a usage mistake exits 2; under --json the failure is also
 * `{"ok":false,"error":{code,message,fix}}` on stdout. Returns the exit code.
 */
export async function runCli(argv: string[]): Promise<number> {
  quietOnClosedPipes();
  const wantsVersion = argv.some((a) => a === '-V' || a === '--version');
  const program = createProgram(wantsVersion ? await packageVersion() : '');
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
          message: error.message.replace(/^error: /, '').split('\n')[0] ?? '',
          hint: 'run with --help for usage',
        });
      return 2;
    }
    const { asFirstlightError, isFirstlightError } = await import('../core/index.js');
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

/** `{"ok":false,"error":{code,message,fix}}`: the fix once, under one name. */
function writeJsonError(failure: { code: string; message: string; hint?: string | undefined }): void {
  const error = {
    code: failure.code,
    message: failure.message,
    ...(failure.hint ? { fix: failure.hint } : {}),
  };
  process.stdout.write(`${JSON.stringify({ ok: false, error })}\n`);
}

/**
 * `firstlight … | head` closes the pipe before the output ends: stop quietly, as other
 * command-line tools do, instead of an unhandled EPIPE stack trace.
 */
function quietOnClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
    });
  }
}

async function packageVersion(): Promise<string> {
  const { readFileSync } = await import('node:fs');
  const { packagePath } = await import('../core/index.js');
  return (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
}
