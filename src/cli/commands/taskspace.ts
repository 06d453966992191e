import type { Command } from 'commander';
import { type HomeOption, homeFrom, print } from '../io.js';

interface TaskspaceOptions extends HomeOption {
  project?: string;
  setName?: string;
  setDescription?: string;
  initialPrompt?: string;
  clearInitialPrompt?: boolean;
  json?: boolean;
}

export function registerTaskspace(program: Command): void {
  program
    .command('taskspace')
    .description(
      'show, create or edit the project taskspace (.firstlight/taskspace.json) the yiasou prompt reads',
    )
    .option('--home <dir>', 'home directory (default: $FIRSTLIGHT_HOME or ~/.firstlight)')
    .option('--project <dir>', 'project root (default: walk up from here to a .firstlight/ directory)')
    .option('--set-name <name>', 'set the taskspace name (a short title)')
    .option('--set-description <text>', 'set the one-line description')
    .option('--initial-prompt <text>', 'set the task the next agent session starts with')
    .option('--clear-initial-prompt', 'remove the initial task (as the first update_taskspace does)')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      [
        '',
        'Without --set-*/--initial-prompt it shows the taskspace. Examples:',
        '  firstlight taskspace --set-name "Invoice retries" --initial-prompt "Add retry with backoff to the invoice queue"',
        '  firstlight taskspace --json',
        '',
        'The agent reads it through the yiasou prompt, expand_reference("yiasou") or get_taskspace, and its',
        'first update_taskspace(name, description) clears the initial prompt.',
      ].join('\n'),
    )
    .action(async (options: TaskspaceOptions) => {
      const { ConfigError, UserError, requireDir } = await import('../../core/index.js');
      // --project names a directory that exists; only its .firstlight/ is created.
      if (options.project !== undefined) requireDir(options.project, '--project');
      const { createGuidance } = await import('../../guidance/index.js');
      if (options.initialPrompt !== undefined && options.clearInitialPrompt) {
        throw new UserError('--initial-prompt and --clear-initial-prompt contradict each other', {
          code: 'INVALID_ARGUMENT',
          hint: 'pass one of them',
        });
      }
      for (const [flag, value] of [
        ['--set-name', options.setName],
        ['--set-description', options.setDescription],
        ['--initial-prompt', options.initialPrompt],
      ] as const) {
        if (value !== undefined && value.trim() === '') {
          throw new UserError(`${flag} is empty`, {
            code: 'INVALID_ARGUMENT',
            hint: `give ${flag} some text (use --clear-initial-prompt to remove the task)`,
          });
        }
      }
      const guidance = createGuidance({
        home: homeFrom(options),
        projectRoot: options.project,
        projectDir: process.cwd(),
      });
      const editing =
        options.setName !== undefined ||
        options.setDescription !== undefined ||
        options.initialPrompt !== undefined ||
        options.clearInitialPrompt === true;
      if (editing) {
        const result = await guidance.writeTaskspace({
          name: options.setName,
          description: options.setDescription,
          initial_prompt: options.clearInitialPrompt ? null : options.initialPrompt,
        });
        print(options.json, result, () =>
          [
            `firstlight: taskspace ${result.created ? 'created' : 'updated'}${result.initial_prompt_cleared ? ' (initial prompt cleared)' : ''}`,
            ...describe(result.taskspace, result.file),
          ].join('\n'),
        );
        return;
      }
      const read = guidance.taskspace();
      if (!read) return;
      if (read.status === 'unreadable' && !options.json) {
        throw new ConfigError(`taskspace store ${read.file} is unreadable: ${read.problem}`, {
          code: 'TASKSPACE_UNREADABLE',
          file: read.file,
          hint: `correct the JSON in ${read.file} or delete it; the yiasou prompt omits the task until then`,
        });
      }
      print(options.json, read, () =>
        read.status === 'ok'
          ? describe(read.taskspace, read.file).join('\n')
          : `no taskspace${read.status === 'empty' ? ' (the store is empty)' : ''} at ${read.file}\n  create one: firstlight taskspace --set-name NAME --initial-prompt "TASK"`,
      );
      // --json still prints what was found, but a broken store is not a success.
      if (read.status === 'unreadable') process.exitCode = 2;
    });
}

function describe(
  t: { name: string; description: string; initial_prompt: string | null },
  file: string,
): string[] {
  return [
    `  name:         ${t.name || '(none)'}`,
    `  description:  ${t.description || '(none)'}`,
    `  initial task: ${t.initial_prompt ?? '(none: taken up, or never set)'}`,
    `  file:         ${file}`,
  ];
}
