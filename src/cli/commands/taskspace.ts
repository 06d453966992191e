import type { Command } from 'commander';
import { HOME_HELP, JSON_HELP, PROJECT_HELP, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';
import { suggestUnknownCommands } from '../suggest.js';

interface TaskspaceOptions extends HomeOption {
  project?: string;
  setName?: string;
  setDescription?: string;
  initialPrompt?: string;
  clearInitialPrompt?: boolean;
  json?: boolean;
}

interface ListOptions extends HomeOption {
  project?: string;
  json?: boolean;
}

interface NewOptions extends ListOptions {
  description?: string;
  initialPrompt?: string;
}

export function registerTaskspace(program: Command): void {
  const taskspace = program
    .command('taskspace')
    .description(
      'show, create or edit the project taskspace (.firstlight/taskspace.json) the yiasou prompt reads; list, new and switch keep several per project',
    )
    .option('--home <dir>', HOME_HELP)
    .option('--project <dir>', PROJECT_HELP)
    .option('--set-name <name>', 'set the taskspace name (a short title)')
    .option('--set-description <text>', 'set the one-line description')
    .option('--initial-prompt <text>', 'set the task the next agent session starts with')
    .option('--clear-initial-prompt', 'remove the initial task (as the first update_taskspace does)')
    .option('--json', JSON_HELP);
  withExamples(
    taskspace,
    [
      'firstlight taskspace --set-name "Invoice retries" --initial-prompt "Add retry with backoff to the invoice queue"',
      'firstlight taskspace --json',
      'firstlight taskspace list',
    ],
    [
      'Without --set-*/--initial-prompt it shows the taskspace.',
      'The agent reads it through the yiasou prompt, expand_reference("yiasou") or get_taskspace, and its',
      'first update_taskspace(name, description) clears the initial prompt.',
      'Several taskspaces per project: `taskspace list` shows them with their ids, `taskspace new NAME`',
      'starts another (the current one is kept), `taskspace switch ID` makes another one current.',
    ],
  ).action(async (options: TaskspaceOptions) => {
    const { ConfigError, UserError, requireDir } = await import('../../core/index.js');
    const { existingHome, print } = await import('../io.js');
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
      home: existingHome(options),
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
  registerTaskspaceList(taskspace);
  registerTaskspaceNew(taskspace);
  registerTaskspaceSwitch(taskspace);
  suggestUnknownCommands(taskspace, { add: 'new', create: 'new', ls: 'list', use: 'switch' });
}

function subcommand(parent: Command, name: string, description: string, examples: string[]): Command {
  return withExamples(
    parent
      .command(name)
      .description(description)
      .option('--home <dir>', HOME_HELP)
      .option('--project <dir>', PROJECT_HELP)
      .option('--json', JSON_HELP),
    examples,
  );
}

async function guidanceFor(options: ListOptions) {
  const { requireDir } = await import('../../core/index.js');
  const { existingHome } = await import('../io.js');
  if (options.project !== undefined) requireDir(options.project, '--project');
  const { createGuidance } = await import('../../guidance/index.js');
  return createGuidance({
    home: existingHome(options),
    projectRoot: options.project,
    projectDir: process.cwd(),
  });
}

function registerTaskspaceList(taskspace: Command): void {
  subcommand(taskspace, 'list', "list the project's taskspaces with their ids; * marks the current one", [
    'firstlight taskspace list',
    'firstlight taskspace list --json',
  ]).action(async (_options: ListOptions, command: Command) => {
    const options = command.optsWithGlobals<ListOptions>();
    const { print } = await import('../io.js');
    const entries = (await guidanceFor(options)).listTaskspaces();
    print(options.json, { taskspaces: entries }, () =>
      entries.length === 0
        ? 'no taskspaces yet: firstlight taskspace new NAME [--initial-prompt "TASK"]'
        : entries
            .map(
              (e) =>
                `${e.current ? '*' : ' '} ${e.id}  ${e.taskspace.name || '(no name)'}${e.taskspace.description ? ` — ${e.taskspace.description}` : ''}${e.taskspace.initial_prompt ? ' [initial task pending]' : ''}`,
            )
            .join('\n'),
    );
  });
}

function registerTaskspaceNew(taskspace: Command): void {
  subcommand(taskspace, 'new', 'start a new taskspace and make it current (the current one is kept)', [
    'firstlight taskspace new "Invoice retries" --initial-prompt "Add retry with backoff"',
  ])
    .argument('<name>', 'short title')
    .option('--description <text>', 'one line on what it is for')
    .option('--initial-prompt <text>', 'the task the next agent session starts with')
    .action(async (name: string, _options: NewOptions, command: Command) => {
      // The parent's --home/--project/--json may come after the subcommand's name: merged here.
      const options = command.optsWithGlobals<NewOptions>();
      const { print } = await import('../io.js');
      const result = await (await guidanceFor(options)).newTaskspace({
        name,
        description: options.description,
        initial_prompt: options.initialPrompt,
      });
      print(options.json, result, () =>
        [
          `firstlight: taskspace ${result.created.id} created and current${result.setAside ? ` (${result.setAside} kept: firstlight taskspace switch ${result.setAside})` : ''}`,
          ...describe(result.created.taskspace, result.created.file),
        ].join('\n'),
      );
    });
}

function registerTaskspaceSwitch(taskspace: Command): void {
  subcommand(taskspace, 'switch', 'make the taskspace with this id the current one', [
    'firstlight taskspace switch task-3f9c0a1b2c4d',
  ])
    .argument('<id>', 'a taskspace id, as `taskspace list` shows it')
    .action(async (id: string, _options: ListOptions, command: Command) => {
      const options = command.optsWithGlobals<ListOptions>();
      const { print } = await import('../io.js');
      const result = await (await guidanceFor(options)).switchTaskspace(id);
      print(options.json, result, () =>
        [
          `firstlight: taskspace ${result.current.id} is current`,
          ...describe(result.current.taskspace, result.current.file),
        ].join('\n'),
      );
    });
}

function describe(
  t: { id: string | null; name: string; description: string; initial_prompt: string | null },
  file: string,
): string[] {
  return [
    `  id:           ${t.id ?? '(none yet: given at the next write)'}`,
    `  name:         ${t.name || '(none)'}`,
    `  description:  ${t.description || '(none)'}`,
    `  initial task: ${t.initial_prompt ?? '(none: taken up, or never set)'}`,
    `  file:         ${file}`,
  ];
}
