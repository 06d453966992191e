import type { Command } from 'commander';
import { HOME_HELP } from '../help-text.js';
import type { HomeOption } from '../io.js';

interface ExportOptions extends HomeOption {
  format?: string;
  out?: string;
  project?: boolean;
  global?: boolean;
  json?: boolean;
}

interface ImportOptions extends HomeOption {
  apply?: boolean;
  project?: boolean;
  global?: boolean;
  json?: boolean;
  maxDepth?: string;
  maxFiles?: string;
  maxBytes?: string;
  maxSeconds?: string;
}

const FORMATS = ['jsonl', 'tar', 'tar.gz'] as const;

/** `memory export` and `memory import`: memories out of a home and into one. */
export function registerMemoryTransfer(memory: Command): void {
  memory
    .command('export')
    .description(
      'write every memory out: JSONL (frontmatter, body and exact text per memory) or a tarball of the files',
    )
    .option('--format <format>', 'jsonl, tar or tar.gz (default: from --out: .tar, .tar.gz/.tgz, else jsonl)')
    .option('--out <file>', 'where to write (default: stdout)')
    .option('--project', "only this project's memories (the project around the current directory)")
    .option('--global', 'only global memories (those of no project)')
    .option('--home <dir>', HOME_HELP)
    .option('--json', 'print a JSON summary (with --out)')
    .addHelpText(
      'after',
      "\nExamples:\n  firstlight memory export --out memories.jsonl\n  firstlight memory export --out memories.tar.gz\n  firstlight memory export --project > this-project.jsonl\n\nEvery project's memories are exported unless --project or --global narrows it. The files are\nexported byte for byte; `firstlight memory import FILE --apply` writes them back.",
    )
    .action(async (options: ExportOptions) => {
      const { writeFileSync } = await import('node:fs');
      const { UserError } = await import('../../core/index.js');
      const { existingHome, print } = await import('../io.js');
      const mind = await import('../../mind/index.js');
      const format = formatOf(options, UserError);
      if (options.project && options.global) {
        throw new UserError('--project and --global contradict each other', {
          code: 'INVALID_ARGUMENT',
          hint: 'pass one of them, or neither for every memory',
        });
      }
      const home = existingHome(options);
      const m = new mind.Mind({ home, projectDir: process.cwd() });
      const project = m.project();
      if (options.project && !project) {
        throw new UserError('--project: no project here', {
          code: 'INVALID_ARGUMENT',
          hint: 'run it inside a project (a directory with .firstlight/ or a git repository with a commit), or drop --project',
        });
      }
      const only = await mind.exportMemories(m.memory, {
        format,
        ...(options.project ? { only: (e) => mind.projectOf(e) === project?.id } : {}),
        ...(options.global ? { only: (e) => mind.projectOf(e) === undefined } : {}),
      });
      m.close();
      if (!options.out) {
        if (format !== 'jsonl' && process.stdout.isTTY) {
          throw new UserError('a tarball is not for a terminal', {
            code: 'INVALID_ARGUMENT',
            hint: 'pass --out memories.tar.gz, or redirect stdout to a file',
          });
        }
        process.stdout.write(only.data);
        return;
      }
      writeFileSync(options.out, only.data);
      print(
        options.json,
        { file: options.out, format, count: only.count, files: only.files },
        () =>
          `firstlight: exported ${only.count} memor${only.count === 1 ? 'y' : 'ies'} to ${options.out} (${format})`,
      );
    });

  memory
    .command('import')
    .description(
      "bring memories in from an export, a folder of markdown notes, or Claude Code's auto-memory: a dry run unless --apply",
    )
    .argument(
      '<source>',
      "a .jsonl or .tar(.gz) from `memory export`, a folder of markdown notes (basic-memory, Obsidian), or `claude` (this project's Claude Code auto-memory)",
    )
    .option('--apply', 'write what the table says would be added (default: only print the table)')
    .option('--project', 'the imported notes belong to this project (the default for `claude`)')
    .option('--global', 'the imported notes are global (the default for a folder)')
    .option('--max-depth <n>', 'folders: how many levels below the source to walk (default 12)')
    .option('--max-files <n>', 'folders: how many entries to look at, files and folders (default 100000)')
    .option('--max-bytes <n>', 'folders: how many bytes of notes to read (default 268435456, 256 MiB)')
    .option('--max-seconds <n>', 'folders: how long the walk may take (default 120)')
    .option('--home <dir>', HOME_HELP)
    .option('--json', 'print JSON: the plan, and what was written')
    .addHelpText(
      'after',
      "\nExamples:\n  firstlight memory import memories.jsonl            (a dry run: the table of what would happen)\n  firstlight memory import memories.tar.gz --apply\n  firstlight memory import ~/notes --apply           (basic-memory / Obsidian markdown)\n  firstlight memory import claude --apply            (Claude Code's auto-memory for this project)\n\nEach file is added, skipped as a duplicate (same file and bytes, or another memory with the same\ntext), or refused with the reason (a name another memory holds, bad frontmatter, an empty note).\nNotes keep the frontmatter that maps (name/title, type, description, tags, dates; other fields as\nthey are); a type that is not ours comes from the note's folder or is `note`. Secrets and\n<private> blocks are redacted. An export's memories keep their own project.\n\nA folder walk never follows a symlink (each is listed as refused, with its target), reads only\nregular files, and stops with an error past --max-depth, --max-files, --max-bytes or\n--max-seconds; SIGTERM or Ctrl-C stops it at once, with nothing written. For `claude`, a\nproject's own .claude/settings*.json may move the folder only inside the project.",
    )
    .action(async (sourceArg: string, options: ImportOptions) => {
      const { existsSync, statSync } = await import('node:fs');
      const { resolve } = await import('node:path');
      const { UserError } = await import('../../core/index.js');
      const { existingHome, positiveInt, print } = await import('../io.js');
      const mind = await import('../../mind/index.js');
      if (options.project && options.global) {
        throw new UserError('--project and --global contradict each other', {
          code: 'INVALID_ARGUMENT',
          hint: 'pass one of them',
        });
      }
      const home = existingHome(options);
      const defaults = mind.DEFAULT_WALK_LIMITS;
      const stop = new AbortController();
      const onSignal = (signal: NodeJS.Signals) => stop.abort(signal);
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
      const limits = {
        maxDepth:
          options.maxDepth === undefined ? defaults.maxDepth : positiveInt('--max-depth', options.maxDepth),
        maxFiles:
          options.maxFiles === undefined ? defaults.maxFiles : positiveInt('--max-files', options.maxFiles),
        maxBytes:
          options.maxBytes === undefined ? defaults.maxBytes : positiveInt('--max-bytes', options.maxBytes),
        maxSeconds:
          options.maxSeconds === undefined
            ? defaults.maxSeconds
            : positiveInt('--max-seconds', options.maxSeconds),
        signal: stop.signal,
      };
      const m = new mind.Mind({ home, projectDir: process.cwd() });
      try {
        let source: import('../../mind/index.js').ImportSource;
        if (sourceArg === 'claude') {
          const { dir, refusedSetting } = mind.claudeAutoMemoryDir(process.cwd(), process.env);
          if (refusedSetting) {
            process.stderr.write(
              `firstlight: ignored autoMemoryDirectory "${refusedSetting.value}" in ${refusedSetting.file}: it leads out of the project (${refusedSetting.resolved}), and a project's settings come with its repository; reading ${dir} instead (give a folder explicitly to import another)\n`,
            );
          }
          if (!isDirectory(statSync, dir)) {
            throw new UserError(`no Claude Code auto-memory for this project at ${dir}`, {
              code: 'NOT_FOUND',
              hint: 'run it in the project Claude Code remembered things for, or give the folder itself: firstlight memory import ~/.claude/projects/<project>/memory',
            });
          }
          source = await mind.readNoteFolder(dir, 'claude', limits);
        } else {
          const path = resolve(sourceArg);
          if (!existsSync(path)) {
            throw new UserError(`${sourceArg}: no such file or folder`, {
              code: 'NOT_FOUND',
              hint: 'give a file from `firstlight memory export` (.jsonl, .tar.gz), a folder of markdown notes, or `claude`',
            });
          }
          if (isDirectory(statSync, path)) source = await mind.readNoteFolder(path, 'folder', limits);
          else if (/\.(?:tar|tar\.gz|tgz)$/i.test(path)) source = await mind.readTarExport(path);
          else if (/\.jsonl$/i.test(path)) source = mind.readJsonlExport(path);
          else {
            throw new UserError(`${sourceArg}: not a folder, a .jsonl or a .tar(.gz)`, {
              code: 'INVALID_ARGUMENT',
              hint: 'give a file from `firstlight memory export`, a folder of markdown notes, or `claude`',
            });
          }
        }
        const scoped = options.project || (source.kind === 'claude' && !options.global);
        const project = scoped ? m.project({ create: Boolean(options.apply) }) : null;
        if (options.project && !project) {
          throw new UserError('--project: no project here', {
            code: 'INVALID_ARGUMENT',
            hint: 'run it inside a project (a directory with .firstlight/ or a git repository), or pass --global',
          });
        }
        const plan = mind.planImport(source, {
          home,
          store: m.memory,
          project: project ? { id: project.id, name: project.name } : null,
        });
        const applied = options.apply ? await mind.applyImport(home, plan, m.memory, m.clock()) : undefined;
        const { writes: _writes, ...shown } = plan;
        print(options.json, { ...shown, applied: applied ?? null }, () =>
          renderPlan(plan, applied, project?.name),
        );
      } finally {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
        m.close();
      }
    });
}

function formatOf(
  options: ExportOptions,
  UserError: typeof import('../../core/index.js').UserError,
): (typeof FORMATS)[number] {
  if (options.format !== undefined) {
    if ((FORMATS as readonly string[]).includes(options.format))
      return options.format as (typeof FORMATS)[number];
    throw new UserError(`--format must be jsonl, tar or tar.gz, not "${options.format}"`, {
      code: 'INVALID_ARGUMENT',
      hint: 'pass --format jsonl (the default) or --format tar.gz',
    });
  }
  const out = options.out?.toLowerCase() ?? '';
  if (out.endsWith('.tar.gz') || out.endsWith('.tgz')) return 'tar.gz';
  if (out.endsWith('.tar')) return 'tar';
  return 'jsonl';
}

function isDirectory(stat: typeof import('node:fs').statSync, path: string): boolean {
  try {
    return stat(path).isDirectory();
  } catch {
    return false;
  }
}

/** The import table: one line per file, then the counts and what to do next. */
function renderPlan(
  plan: import('../../mind/index.js').ImportPlan,
  applied: { written: string[]; skipped: string[] } | undefined,
  projectName: string | undefined,
): string {
  const word = { add: applied ? 'added' : 'add', duplicate: 'duplicate', refused: 'refused' } as const;
  const width = Math.min(48, Math.max(6, ...plan.rows.map((r) => r.source.length)));
  const lines = [`${'action'.padEnd(10)} ${'source'.padEnd(width)}  memory / why`];
  for (const r of plan.rows) {
    const red = r.redacted
      ? ` [redacted: ${Object.entries(r.redacted)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ')}]`
      : '';
    const target = r.action === 'add' ? `memory/${r.file} (${r.type}) "${r.name}"` : r.reason;
    lines.push(`${word[r.action].padEnd(10)} ${r.source.padEnd(width)}  ${target}${red}`);
  }
  const { add, duplicate, refused } = plan.counts;
  lines.push(
    '',
    `${plan.kind === 'claude' ? "Claude Code's auto-memory" : plan.kind === 'export' ? 'export' : 'folder'} ${plan.path}: ${add} to add, ${duplicate} duplicate, ${refused} refused${plan.ignored.length > 0 ? `; ${plan.ignored.length} other file(s) ignored` : ''}${projectName && add > 0 && plan.kind !== 'export' ? `; added to project ${projectName}` : ''}`,
  );
  if (applied) {
    lines.push(
      `wrote ${applied.written.length} memor${applied.written.length === 1 ? 'y' : 'ies'}${applied.skipped.length > 0 ? `; ${applied.skipped.length} appeared meanwhile and were left alone: ${applied.skipped.join(', ')}` : ''}`,
    );
  } else if (add > 0) lines.push('dry run: nothing written. Run again with --apply to add them.');
  return lines.join('\n');
}
