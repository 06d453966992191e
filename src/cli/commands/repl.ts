import type { Command } from 'commander';
import { type HomeOption, homeFrom } from '../io.js';

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
        'SIGTERM) the namespace is saved as "autosave" and restored at the next start.',
        'Settings (firstlight.yaml, section repl): timeout_s (120), output_max_chars (20000),',
        '       interrupt_grace_s (2), python ("python3"), autosave (true).',
        'Needs Python 3.10+ (standard library only). Logs go to stderr (FIRSTLIGHT_LOG=debug).',
      ].join('\n'),
    )
    .action(async (options: HomeOption) => {
      const { createLogger, homePaths, loadSettings } = await import('../../core/index.js');
      const { Repl } = await import('../../repl/index.js');
      const { createReplServer, serveStdio } = await import('../../servers/index.js');
      const log = createLogger('repl');
      const home = homeFrom(options);
      const loaded = loadSettings(homePaths(home).settings);
      for (const problem of loaded.problems) log.warn(problem);
      const harness = await Repl.start({
        home,
        log,
        settings: loaded.settings.repl,
        cwd: process.cwd(),
        env: process.env,
      });
      await serveStdio(createReplServer({ repl: harness, log }), {
        log,
        onShutdown: () => harness.shutdown(),
      });
    });
}
