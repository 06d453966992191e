import type { Command } from 'commander';
import { existingHome, type HomeOption } from '../io.js';

export function registerRepl(program: Command): void {
  const repl = program
    .command('repl')
    .description('the REPL harness: a persistent Python REPL whose capabilities are MCP servers');
  repl
    .command('serve')
    .description('serve the REPL harness (MCP server "firstlight-repl") over stdio')
    .option('--home <dir>', 'home directory (default: $FIRSTLIGHT_HOME or ~/.firstlight)')
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
        '       interrupt_grace_s (2), python ("python3"), autosave (true).',
        'Needs Python 3.10+ (standard library only). Logs go to stderr (FIRSTLIGHT_LOG=debug).',
      ].join('\n'),
    )
    .action(async (options: HomeOption) => {
      const { createLogger, homePaths, loadSettings } = await import('../../core/index.js');
      const { Repl, autosaveNameFor } = await import('../../repl/index.js');
      const { createReplServer, serveStdio } = await import('../../servers/index.js');
      const log = createLogger('repl');
      const home = existingHome(options);
      const { chooseProject } = await import('../project.js');
      const project = chooseProject(undefined, home);
      const loaded = loadSettings(homePaths(home).settings);
      for (const problem of loaded.problems) log.warn(problem);
      const harness = await Repl.start({
        home,
        log,
        settings: loaded.settings.repl,
        cwd: process.cwd(),
        env: process.env,
        autosave: autosaveNameFor(project.dir),
      });
      await serveStdio(createReplServer({ repl: harness, log }), {
        log,
        onShutdown: () => harness.shutdown(),
      });
    });
}
