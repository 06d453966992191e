import type { Command } from 'commander';
import { HOME_HELP, JSON_HELP, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';
import { suggestUnknownCommands } from '../suggest.js';

interface ImportOptions extends HomeOption {
  json?: boolean;
}

export function registerImport(program: Command): void {
  const command = program
    .command('import')
    .description("bring another agent runtime's state into firstlight");
  withExamples(command, ['firstlight import openclaw ~/.openclaw/self-state.json']);
  suggestUnknownCommands(command);
  const openclaw = command
    .command('openclaw')
    .description(
      "read an OpenClaw self-state file (streamTail, verbatimAnchors) into firstlight's self-state",
    )
    .argument('<file>', "OpenClaw's self-state JSON")
    .option('--home <dir>', HOME_HELP)
    .option('--json', JSON_HELP);
  withExamples(
    openclaw,
    [
      'firstlight import openclaw ~/.openclaw/self-state.json',
      'firstlight packet --format markdown   # see the result',
    ],
    [
      'streamTail.raw becomes the stream tail the next session wakes up reading; each',
      'verbatimAnchors[] entry an anchor (raw → text, triggerType → trigger). Anchors already',
      'stored are kept.',
    ],
  ).action(async (file: string, options: ImportOptions) => {
    const { existingHome, print } = await import('../io.js');
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
