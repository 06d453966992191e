import type { Command } from 'commander';
import { collect, HOME_HELP, JSON_HELP, numberOption, withExamples } from '../help-text.js';
import { addHttpOptions, type HttpFlags } from '../http-options.js';
import type { HomeOption } from '../io.js';
import { suggestUnknownCommands } from '../suggest.js';

export interface ReplOptions extends HomeOption {
  kernel?: string;
}

export interface ExecOptions extends ReplOptions {
  timeout?: string | number;
  json?: boolean;
}

export interface CapabilityAddOptions extends ReplOptions {
  env: string[];
  cwd?: string;
  json?: boolean;
}

interface ReplServeOptions extends ReplOptions, HttpFlags {
  /** false with --no-token. */
  token: boolean;
}

const KERNEL_HELP =
  'stdlib (the built-in kernel) or jupyter (an IPython kernel via jupyter_client); default: repl.kernel, else stdlib';

/** `--home` and `--kernel`, which every repl subcommand takes. */
function harnessOptions(command: Command): Command {
  return command.option('--home <dir>', HOME_HELP).option('--kernel <kind>', KERNEL_HELP);
}

export function registerRepl(program: Command): void {
  const repl = harnessOptions(
    program
      .command('repl')
      .description(
        'a persistent Python REPL whose capabilities are MCP servers: a prompt here, one cell (exec), capabilities, or the MCP server (serve)',
      ),
  ).allowExcessArguments(true);
  withExamples(
    repl,
    [
      'firstlight repl',
      "firstlight repl exec 'sum(range(10))'",
      'firstlight repl capability add mem -- npx -y @modelcontextprotocol/server-memory',
      'firstlight repl serve --http',
    ],
    [
      'Every repl command works on the same harness as the MCP server (repl serve): the namespace is',
      "saved to the project's autosave when one ends and restored when the next starts, so a function",
      'defined at the prompt is there for `repl exec`, for agents, and for the next prompt.',
    ],
  ).action(async (options: ReplOptions, command: Command) => {
    if (command.args.length > 0) {
      const { closest, didYouMean } = await import('../suggest.js');
      const close = didYouMean(
        closest(
          command.args[0] ?? '',
          command.commands.map((c) => c.name()),
        ),
      );
      command.error(`error: unknown command '${command.args[0]}'${close ? `\n${close}` : ''}`, {
        code: 'commander.unknownCommand',
        exitCode: 2,
      });
    }
    const { runTerminalRepl } = await import('../terminal/index.js');
    process.exitCode = await runTerminalRepl(options);
  });

  const exec = harnessOptions(
    repl
      .command('exec')
      .description("run one cell in the project's REPL and print its output (the namespace persists)")
      .argument('[code]', 'Python code; "-" (or none, with stdin not a terminal) reads it from stdin'),
  )
    .addOption(
      numberOption(
        '--timeout <seconds>',
        'interrupt the cell after this long (default: repl.timeout_s)',
        120,
      ),
    )
    .option('--json', `${JSON_HELP}: the ExecutionResult`);
  withExamples(
    exec,
    [
      "firstlight repl exec 'x = 21'",
      "firstlight repl exec 'x * 2'",
      'firstlight repl exec - < analysis.py',
      "echo 'import sys; print(sys.version)' | firstlight repl exec --json",
    ],
    ['Exit 0 when the cell succeeds, 1 when it raises (the traceback on stderr). Ctrl-C interrupts it.'],
  ).action(async (code: string | undefined, _options: ExecOptions, command: Command) => {
    const { replExec } = await import('./repl-actions.js');
    const options = command.optsWithGlobals<ExecOptions>();
    process.exitCode = await replExec(code, {
      ...options,
      timeoutGiven: command.getOptionValueSource('timeout') !== 'default',
    });
  });

  const capability = repl
    .command('capability')
    .description("the MCP servers the project's REPL starts as Python objects: add, list, remove");
  withExamples(capability, [
    'firstlight repl capability add mem -- npx -y @modelcontextprotocol/server-memory',
    'firstlight repl capability list',
    'firstlight repl capability remove mem',
  ]);
  suggestUnknownCommands(capability, {
    install: 'add',
    rm: 'remove',
    delete: 'remove',
    uninstall: 'remove',
    ls: 'list',
  });

  const add = harnessOptions(
    capability
      .command('add')
      .description("start an MCP server and keep it in the project's REPL as a Python object NAME")
      .argument('<name>', 'the Python name, e.g. mem')
      .argument('<command...>', 'the program and its arguments (after --), or one quoted command line'),
  )
    .option('--env <key=value>', 'an environment variable for the server (repeatable)', collect, [])
    .option('--cwd <dir>', "the server's working directory")
    .option('--json', JSON_HELP);
  withExamples(
    add,
    [
      'firstlight repl capability add mem -- npx -y @modelcontextprotocol/server-memory',
      'firstlight repl capability add fs --env LOG=1 -- npx -y @modelcontextprotocol/server-filesystem .',
      'firstlight repl capability add notes "mcp-server-memory"',
    ],
    [
      'It starts the server (a first `npx -y` downloads it: a progress line shows the wait), turns its',
      "tools into methods (mem.create_entities(…)), and saves it to the project's autosave, so every",
      'repl in this project starts with it.',
    ],
  ).action(async (name: string, words: string[], _options: CapabilityAddOptions, command: Command) => {
    const { capabilityAdd } = await import('./repl-actions.js');
    process.exitCode = await capabilityAdd(name, words, command.optsWithGlobals<CapabilityAddOptions>());
  });

  const list = harnessOptions(
    capability.command('list').alias('ls').description("the capabilities saved in the project's autosave"),
  ).option('--json', JSON_HELP);
  withExamples(list, ['firstlight repl capability list', 'firstlight repl capability list --json']).action(
    async (_options: ReplOptions & { json?: boolean }, command: Command) => {
      const { capabilityList } = await import('./repl-actions.js');
      await capabilityList(command.optsWithGlobals());
    },
  );

  const remove = harnessOptions(
    capability
      .command('remove')
      .alias('rm')
      .description("stop a capability's server and take it out of the project's autosave")
      .argument('<name>', 'the capability, as `capability list` shows it'),
  ).option('--json', JSON_HELP);
  withExamples(remove, ['firstlight repl capability remove mem']).action(
    async (name: string, _options: ReplOptions & { json?: boolean }, command: Command) => {
      const { capabilityRemove } = await import('./repl-actions.js');
      await capabilityRemove(name, command.optsWithGlobals());
    },
  );

  const serve = harnessOptions(
    repl
      .command('serve')
      .description(
        'serve the REPL harness (MCP server "firstlight-repl") over stdio, or streamable HTTP with --http',
      ),
  );
  withExamples(
    addHttpOptions(serve, 7822).option(
      '--no-token',
      'HTTP on loopback: serve without a token (any local process may then run code)',
    ),
    [
      'firstlight repl serve',
      'firstlight repl serve --http --port 7822',
      'firstlight repl serve --kernel jupyter',
    ],
    [
      'Tools: execute, state, install_capability, uninstall_capability, describe_capability,',
      '       save_state, restore_state, reset (firstlight help repl).',
      'Saved states live in <home>/repl/states/<name>.json. On shutdown (stdin closed, SIGINT,',
      'SIGTERM) the namespace is saved as "autosave.<project>-<hash>" and restored at the next',
      'start in the same project (the nearest directory up with a .firstlight/, else a .git, else here).',
      'Settings (firstlight.yaml, section repl): timeout_s (120), output_max_chars (20000),',
      '       interrupt_grace_s (2), python ("python3"), kernel ("stdlib"), autosave (true).',
      'The stdlib kernel needs Python 3.10+ only. --kernel jupyter needs jupyter_client and',
      'ipykernel (apt-get install python3-ipykernel python3-jupyter-client, or pip), and gives',
      'IPython semantics: magics, ! shell commands, rich display as text.',
      'HTTP binds 127.0.0.1 by default and, as it runs code, wants a bearer token on loopback too: one',
      'is generated at start (printed with the client config, and kept in <home>/run/ where',
      'firstlight call finds it), or FIRSTLIGHT_TOKEN (16+ characters) when set; --no-token opts out',
      'on loopback only. All sessions share one kernel.',
      'install_capability reports progress (MCP notifications/progress) while its server starts.',
      'Logs go to stderr (FIRSTLIGHT_LOG=debug).',
    ],
  ).action(async (_options: ReplServeOptions, command: Command) => {
    const { replServe } = await import('./repl-serve.js');
    // `repl --home X serve` and `repl serve --home X` alike: the parent's options merged in.
    await replServe(command.optsWithGlobals<ReplServeOptions>());
  });
}
