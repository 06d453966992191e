import type { Command } from 'commander';
import { type HomeOption, homeFrom, print } from '../io.js';

export function registerInit(program: Command): void {
  program
    .command('init')
    .description('scaffold a home from the bundled example (persona, memories, settings)')
    .option('--home <dir>', 'home directory (default: $FIRSTLIGHT_HOME or ~/.firstlight)')
    .option('--force', 'add missing example files to a non-empty directory (existing files are kept)')
    .option('--json', 'print JSON')
    .action(async (options: HomeOption & { force?: boolean; json?: boolean }) => {
      const { initHome } = await import('../../core/index.js');
      const dir = homeFrom(options);
      const result = initHome(dir, { force: options.force ?? false });
      print(
        options.json,
        result,
        () => `firstlight: home ready at ${result.dir}\n  next: firstlight serve --home ${result.dir}`,
      );
    });
}
