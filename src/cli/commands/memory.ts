import { join } from 'node:path';
import type { Command } from 'commander';
import { HOME_HELP, JSON_HELP, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';
import { suggestUnknownCommands } from '../suggest.js';
import { registerMemoryTransfer } from './memory-transfer.js';

interface JsonOption extends HomeOption {
  json?: boolean;
}

interface ListOptions extends JsonOption {
  type?: string;
  forgotten?: boolean;
  project?: boolean;
  global?: boolean;
  allProjects?: boolean;
}

/** `firstlight memory list|show|edit|forget|restore`: the mind's memory without touching raw files. */
export function registerMemory(program: Command): void {
  const memory = program
    .command('memory')
    .description('see and manage memories: list, show, edit, forget, restore, export, import')
    .addHelpText(
      'after',
      '\nExamples:\n  firstlight memory list --type feedback\n  firstlight memory show "Squash merges only"\n  EDITOR=nano firstlight memory edit user_alex\n  firstlight memory forget "Old cache decision"\n  firstlight memory restore "Old cache decision"\n  firstlight memory export --out memories.jsonl\n  firstlight memory import ~/notes',
    );
  registerMemoryTransfer(memory);
  registerReview(memory);
  suggestUnknownCommands(memory, {
    delete: 'forget',
    remove: 'forget',
    rm: 'forget',
    undo: 'restore',
    view: 'show',
  });

  const list = memory
    .command('list')
    .alias('ls')
    .description(
      "list memories: type, name, description, file (MEMORY.md itself is not listed); this project's and the global ones",
    )
    .option('--type <type>', 'only memories of this type (user, feedback, …, or custom:NAME)')
    .option('--project', "only this project's memories (the project around the current directory)")
    .option('--global', 'only global memories (those of no project)')
    .option('--all-projects', "every project's memories, each with its project")
    .option('--forgotten', 'list forgotten memories (memory/.trash/) that `memory restore` can bring back')
    .option('--home <dir>', HOME_HELP)
    .option('--json', JSON_HELP);
  withExamples(list, [
    'firstlight memory list',
    'firstlight memory list --type feedback --json',
    'firstlight memory list --all-projects',
  ]).action(async (options: ListOptions) => {
    const { print } = await import('../io.js');
    const mind = await import('../../mind/index.js');
    const home = await homeOf(options);
    if (options.forgotten) {
      const forgotten = mind.listForgotten(home);
      print(options.json, { forgotten }, () =>
        forgotten.length === 0
          ? 'firstlight: nothing forgotten'
          : forgotten
              .map((r) => `${r.forgotten_at}  ${r.type}  ${r.name}  (was memory/${r.file})`)
              .join('\n'),
      );
      return;
    }
    const m = new mind.Mind({ home, projectDir: process.cwd() });
    const project = m.project();
    const scope = options.allProjects ? 'all' : m.memoryScope();
    const listing = mind.listMemories(m.memory.snapshot(), scope);
    m.close();
    const only = (f: { project: string | null }) =>
      options.global
        ? f.project === null
        : options.project
          ? f.project !== null && f.project === project?.id
          : true;
    const all = listing.files.filter((f) => f.type !== 'index' && only(f));
    const type = options.type === undefined ? undefined : typeFilter(options.type, all, mind.normalizeType);
    const files = type === undefined ? all : all.filter((f) => f.type === type);
    const otherTypes: Record<string, number> = {};
    for (const f of all) if (!mind.isValidType(f.type)) otherTypes[f.type] = (otherTypes[f.type] ?? 0) + 1;
    const result = {
      memories: files,
      skipped: listing.skipped,
      other_types: otherTypes,
      project: project ? { id: project.id, name: project.name, root: project.root } : null,
      other_projects: listing.other_projects,
    };
    print(options.json, result, () => {
      const lines = files.map(
        (f) =>
          `${f.type.padEnd(15)} ${f.name}${f.description ? ` — ${f.description}` : ''}  (${f.file}${f.project ? `, ${f.project === project?.id ? 'this project' : `project ${f.project}`}` : ''})`,
      );
      const which = options.allProjects
        ? 'in every project'
        : options.global
          ? 'global'
          : options.project
            ? `of project ${project?.name ?? '(none here)'}`
            : project
              ? `of project ${project.name} and global`
              : 'global (no project here)';
      lines.push(
        `${files.length} memor${files.length === 1 ? 'y' : 'ies'} ${which}${type ? ` of type ${type}` : ''}`,
      );
      if (!options.allProjects && listing.other_projects > 0)
        lines.push(`${listing.other_projects} more in other projects (--all-projects to list them)`);
      if (options.project && !project)
        lines.push('no project here: a directory with .firstlight/ or a git repository with a commit is one');
      const others = Object.entries(otherTypes);
      if (others.length > 0) {
        lines.push(
          `types outside the list (${mind.validTypesText()}): ${others.map(([t, n]) => `${t} (${n})`).join(', ')}; they load and recall as before, and \`memory edit\` keeps them`,
        );
      }
      for (const s of listing.skipped) lines.push(`skipped ${s.file}: ${s.problem}`);
      return lines.join('\n');
    });
  });

  const show = memory
    .command('show')
    .description('print one memory (by name or file name): its frontmatter and body')
    .argument('<name>', 'the memory name or file name (as `memory list` shows it)')
    .option('--home <dir>', HOME_HELP)
    .option('--json', 'print JSON: {ok, file, frontmatter, body}');
  withExamples(show, [
    'firstlight memory show "Squash merges only"',
    'firstlight memory show user_alex.md --json',
  ]).action(async (name: string, options: JsonOption) => {
    const { print } = await import('../io.js');
    const mind = await import('../../mind/index.js');
    const home = await homeOf(options);
    const memoryDir = join(home, 'memory');
    const store = storeOf(mind, home);
    const { memoryNames, onlyMatch, withNameSuggestions } = await import('./memory-names.js');
    const file = await withNameSuggestions(
      name,
      () => memoryNames(store.snapshot().entries),
      () => {
        try {
          return mind.memoryFileFor(memoryDir, store, name);
        } catch (error) {
          // A read shows the one memory that matches; several are offered as suggestions.
          const only = onlyMatch(name, store.snapshot().entries);
          if (!only) throw error;
          process.stderr.write(`(showing "${only.name}", the one memory that matches "${name}")\n`);
          return only.file;
        }
      },
    );
    const read = mind.readMemoryFile(memoryDir, file);
    print(options.json, read, () => (mind.readMemoryText(memoryDir, file) ?? '').replace(/\n$/, ''));
  });

  const edit = memory
    .command('edit')
    .description('open one memory in $VISUAL or $EDITOR; the result is checked before it is saved')
    .argument('<name>', 'the memory name or file name')
    .option('--home <dir>', HOME_HELP)
    .option('--json', JSON_HELP);
  withExamples(
    edit,
    ['firstlight memory edit user_alex', 'EDITOR="code --wait" firstlight memory edit "Squash merges only"'],
    [
      'The editor works on a copy. On save the frontmatter must still parse, with a name and a type',
      'from the list; otherwise nothing is written, the error names the field, and your edited copy is',
      'kept at the path the error gives. A name or description you change is carried into MEMORY.md.',
      'The editor is $VISUAL, else $EDITOR, else the first of editor, nano, vi found on PATH.',
    ],
  ).action(async (name: string, options: JsonOption) => {
    const { editMemory } = await import('./memory-edit.js');
    const home = await homeOf(options);
    const result = await editMemory(home, name);
    const { print } = await import('../io.js');
    print(options.json, result, () =>
      result.changed
        ? `firstlight: saved memory/${result.file}${result.index_line_updated ? ' and its MEMORY.md line' : ''}`
        : `firstlight: no changes to memory/${result.file}`,
    );
  });

  byName(memory, {
    name: 'forget',
    aliases: ['rm', 'delete', 'remove'],
    description:
      'forget a memory: its file moves to memory/.trash/ and its MEMORY.md line is removed (aliases: rm, delete, remove)',
    argument: 'the memory name or file name',
    examples: ['firstlight memory forget "Old cache decision"', 'firstlight memory rm note_cache_ttl_old'],
    candidates: (mind, home) => memoryNamesOf(mind, home),
    run: (mind, home, name) => mind.forgetMemory(home, name),
    say: (mind, result) =>
      `firstlight: forgot "${result.name}" (${result.type}); it is in memory/${mind.TRASH_DIR}/${result.trashed_as}\n  undo: firstlight memory restore ${quoteArg(result.name)}`,
  });
  byName(memory, {
    name: 'restore',
    description: 'bring a forgotten memory back, byte for byte, with its MEMORY.md line',
    argument: 'the forgotten memory name or file name (see `memory list --forgotten`)',
    examples: ['firstlight memory list --forgotten', 'firstlight memory restore "Old cache decision"'],
    candidates: (mind, home) =>
      mind.listForgotten(home).flatMap((r) => [r.name, r.file.replace(/\.md$/, '')]),
    run: (mind, home, name) => mind.restoreMemory(home, name),
    say: (_mind, result) => `firstlight: restored "${result.name}" to memory/${result.file}`,
  });
}

/** A subcommand that acts on one memory by name: `--home`, `--json`, the result printed. */
function byName<R>(
  parent: Command,
  spec: {
    name: string;
    aliases?: string[];
    description: string;
    argument: string;
    examples: string[];
    /** The names a mistyped one is compared with. */
    candidates: (mind: Mind, home: string) => string[] | Promise<string[]>;
    run: (mind: Mind, home: string, name: string) => Promise<R>;
    say: (mind: Mind, result: R) => string;
  },
): void {
  const command = parent
    .command(spec.name)
    .aliases(spec.aliases ?? [])
    .description(spec.description)
    .argument('<name>', spec.argument)
    .option('--home <dir>', HOME_HELP)
    .option('--json', JSON_HELP);
  withExamples(command, spec.examples).action(async (name: string, options: JsonOption) => {
    const { print } = await import('../io.js');
    const { withNameSuggestions } = await import('./memory-names.js');
    const mind = await import('../../mind/index.js');
    const home = await homeOf(options);
    const result = await withNameSuggestions(
      name,
      () => spec.candidates(mind, home),
      () => spec.run(mind, home, name),
    );
    print(options.json, result as object, () => spec.say(mind, result));
  });
}

/** The home for a command: it must exist, as for every command but init. */
interface ReviewOptions extends JsonOption {
  all?: boolean;
}

/** `firstlight memory review [accept|edit|reject NAME|--all]`: what capture proposed (capture.mode: review). */
function registerReview(memory: Command): void {
  const review = memory
    .command('review [action] [name]')
    .description(
      'captured memories waiting for review: list (default), accept, edit or reject one (or --all)',
    )
    .option('--all', 'accept or reject every proposed memory')
    .option('--home <dir>', HOME_HELP)
    .option('--json', JSON_HELP);
  withExamples(review, [
    'firstlight memory review',
    'firstlight memory review accept "Never use yarn here"',
    'EDITOR=nano firstlight memory review edit "Never use yarn here"',
    'firstlight memory review reject --all',
  ]).action(async (action: string | undefined, name: string | undefined, options: ReviewOptions) => {
    const { print } = await import('../io.js');
    const capture = await import('../../capture/index.js');
    const { UserError } = await import('../../core/index.js');
    const home = await homeOf(options);
    const verb = action ?? 'list';
    if (verb === 'list') {
      const proposed = capture.listProposed(home);
      print(options.json, { proposed }, () =>
        proposed.length === 0
          ? 'firstlight: no captured memory waits for review'
          : proposed
              .map(
                (p) =>
                  `${p.type}  ${p.name}: ${p.description}${p.applies_to.length ? ` (applies_to ${p.applies_to.join(', ')})` : ''}
${p.evidence.map((e) => `    ${e}`).join('\n')}`,
              )
              .join('\n'),
      );
      return;
    }
    if (!['accept', 'edit', 'reject'].includes(verb))
      throw new UserError(`unknown review action "${verb}"`, {
        code: 'INVALID_ARGUMENT',
        hint: 'action: list, accept, edit or reject (firstlight memory review accept NAME)',
      });
    const which = options.all && verb !== 'edit' ? ({ all: true } as const) : name;
    if (which === undefined)
      throw new UserError(`memory review ${verb} needs a NAME${verb === 'edit' ? '' : ' or --all'}`, {
        code: 'INVALID_ARGUMENT',
        hint: 'firstlight memory review lists the proposed memories by name',
      });
    if (verb === 'edit') {
      const [chosen] = capture.pick(home, which);
      const { editMemory } = await import('./memory-edit.js');
      await editMemory(home, chosen!.file);
    }
    const done =
      verb === 'reject'
        ? await capture.rejectProposed(home, which)
        : await capture.acceptProposed(home, verb === 'edit' ? capture.pick(home, which)[0]!.file : which);
    const past = verb === 'reject' ? 'rejected' : 'accepted';
    print(options.json, { [past]: done }, () =>
      done
        .map(
          (p) =>
            `firstlight: ${past} ${p.type} "${p.name}"${verb === 'reject' ? ' (firstlight memory restore brings it back)' : ''}`,
        )
        .join('\n'),
    );
  });
}

async function homeOf(options: HomeOption): Promise<string> {
  const { existingHome } = await import('../io.js');
  return existingHome(options);
}

async function memoryNamesOf(mind: Mind, home: string): Promise<string[]> {
  const { memoryNames } = await import('./memory-names.js');
  return memoryNames(storeOf(mind, home).snapshot().entries);
}

type Mind = typeof import('../../mind/index.js');

function storeOf(mind: Mind, home: string) {
  return new mind.MemoryStore(join(home, 'memory'), {
    cacheFile: join(home, 'cache', 'memory-entries.json'),
  });
}

/**
 * `--type`: a type from the list (or custom:NAME), or one the home's files already use (older
 * homes); anything else is the error that names the valid types.
 */
function typeFilter(given: string, files: { type: string }[], normalize: (t: string) => string): string {
  const t = given.trim().toLowerCase();
  if (files.some((f) => f.type === t)) return t;
  return normalize(given);
}

/** A name as a shell argument in the undo line. */
function quoteArg(text: string): string {
  return /^[A-Za-z0-9_.-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
