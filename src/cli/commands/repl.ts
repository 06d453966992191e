import type { Command } from 'commander';
import { addHttpOptions, type HttpFlags, httpSettings } from '../http-options.js';
import { existingHome, type HomeOption } from '../io.js';

interface ReplServeOptions extends HomeOption, HttpFlags {
  kernel?: string;
}

export function registerRepl(program: Command): void {
  const repl = program
    .command('repl')
    .description('the REPL harness: a persistent Python REPL whose capabilities are MCP servers');
  const serve = repl
    .command('serve')
    .description(
      'serve the REPL harness (MCP server "firstlight-repl") over stdio, or streamable HTTP with --http',
    )
    .option('--home <dir>', 'home directory (default: $FIRSTLIGHT_HOME or ~/.firstlight)')
    .option(
      '--kernel <kind>',
      'stdlib (the built-in kernel) or jupyter (an IPython kernel via jupyter_client); default: repl.kernel, else stdlib',
    );
  addHttpOptions(serve, '7822')
    .addHelpText(
      'after',
      [
        '',
        'Tools: execute, state, install_capability, uninstall_capability, describe_capability,',
        '       save_state, restore_state, reset (see docs/repl.md).',
        'Saved states live in <home>/repl/states/<name>.json. On shutdown (stdin closed, SIGINT,',
        'SIGTERM) the namespace is saved as "autosave.<project>-<hash>" and restored at the next',
        'start in the same project (the nearest directory up with a .firstlight/ or .git, else here).',
        'Settings (firstlight.yaml, section repl): timeout_s (120), output_max_chars (20000),',
        '       interrupt_grace_s (2), python ("python3"), kernel ("stdlib"), autosave (true).',
        'The stdlib kernel needs Python 3.10+ only. --kernel jupyter needs jupyter_client and',
        'ipykernel (apt-get install python3-ipykernel python3-jupyter-client, or pip), and gives',
        'IPython semantics: magics, ! shell commands, rich display as text.',
        'HTTP binds 127.0.0.1 by default; FIRSTLIGHT_TOKEN (16+ characters) is required off',
        'loopback and then sent by clients as a bearer token. All sessions share one kernel.',
        'Logs go to stderr (FIRSTLIGHT_LOG=debug).',
      ].join('\n'),
    )
    .action(async (options: ReplServeOptions) => {
      const { UserError, createLogger, homePaths, loadSettings } = await import('../../core/index.js');
      const { Repl, autosaveNameFor, kernelPython } = await import('../../repl/index.js');
      const { checkBind, createReplServer, serveHttp, serveStdio } = await import('../../servers/index.js');
      const log = createLogger('repl');
      const http = options.http ? httpSettings(options) : undefined;
      if (http) checkBind(http.host, http.token);
      const home = existingHome(options);
      const { chooseProject } = await import('../project.js');
      const project = chooseProject(undefined, home);
      const loaded = loadSettings(homePaths(home).settings);
      for (const problem of loaded.problems) log.warn(problem);
      const settings = { ...loaded.settings.repl };
      if (options.kernel !== undefined) {
        if (options.kernel !== 'stdlib' && options.kernel !== 'jupyter') {
          throw new UserError(`--kernel must be stdlib or jupyter, not "${options.kernel}"`, {
            code: 'INVALID_ARGUMENT',
            hint: 'pass --kernel stdlib (built in) or --kernel jupyter (needs ipykernel)',
          });
        }
        settings.kernel = options.kernel;
      }
      const harness = await Repl.start({
        home,
        log,
        settings,
        python: kernelPython(settings.python, settings.kernel),
        cwd: process.cwd(),
        env: process.env,
        autosave: autosaveNameFor(project.dir),
      });
      if (!http) {
        await serveStdio(createReplServer({ repl: harness, log }), {
          log,
          onShutdown: () => harness.shutdown(),
        });
        return;
      }
      const running = await serveHttp({
        ...http,
        log,
        createServer: () => createReplServer({ repl: harness, log }),
      });
      process.stdout.write(
        [
          `firstlight repl serving ${home} (${settings.kernel} kernel)`,
          `  MCP endpoint: ${running.url}`,
          ...(http.token ? ['  Clients send: Authorization: Bearer <the FIRSTLIGHT_TOKEN value>'] : []),
          'Ctrl-C to stop.',
          '',
        ].join('\n'),
      );
      let stopping = false;
      const stop = async () => {
        if (stopping) return;
        stopping = true;
        await running.close();
        await harness.shutdown();
        process.exit(0);
      };
      process.on('SIGINT', () => void stop());
      process.on('SIGTERM', () => void stop());
    });
}
