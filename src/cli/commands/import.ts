import type { Command } from 'commander';
import { existingHome, type HomeOption, print } from '../io.js';

interface ImportOptions extends HomeOption {
  json?: boolean;
}

export function registerImport(program: Command): void {
  const command = program
    .command('import')
    .description("bring another agent runtime's state into firstlight");
  command
    .command('openclaw')
    .description(
      "read an OpenClaw self-state file (streamTail, verbatimAnchors) into firstlight's self-state",
    )
    .argument('<file>', "OpenClaw's self-state JSON")
    .option('--home <dir>', 'home directory (default: $FIRSTLIGHT_HOME or ~/.firstlight)')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      [
        '',
        'streamTail.raw becomes the stream tail the next session wakes up reading; each',
        'verbatimAnchors[] entry an anchor (raw → text, triggerType → trigger). Anchors already',
        'stored are kept. See the result with: firstlight packet --format markdown',
      ].join('\n'),
    )
    .action(async (file: string, options: ImportOptions) => {
      const { importOpenClawSelfState } = await import('../../resume/index.js');
      const { resolve } = await import('node:path');
      const home = existingHome(options);
      const result = await importOpenClawSelfState(home, resolve(file));
      print(
        options.json,
        result,
        () =>
          `firstlight: imported ${result.stream_tail_chars} characters of stream tail and ${result.anchors_imported} anchors from ${result.from} (${result.anchors_stored} anchors stored, key ${result.session_key})`,
      );
    });
}
