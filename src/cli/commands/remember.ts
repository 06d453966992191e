import type { Command } from 'commander';
import { existingHome, type HomeOption, print, readStdin } from '../io.js';

interface RememberOptions extends HomeOption {
  type: string;
  name?: string;
  description?: string;
  tag: string[];
  appliesTo: string[];
  onMatch?: string;
  repeat?: boolean;
  replace?: boolean;
  global?: boolean;
  json?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerRemember(program: Command): void {
  program
    .command('remember')
    .description('store a memory (content on stdin): one markdown file + one MEMORY.md index line')
    .requiredOption(
      '--type <type>',
      'memory type: user, feedback, caution, project, reference, note, session, session_digest, or custom:NAME',
    )
    .option('--name <name>', 'a short title (default: a few words from the first line of the content)')
    .option('--description <text>', 'one-line hook (default: the first sentence)')
    .option('--tag <tag>', 'a tag (repeatable)', collect, [])
    .option(
      '--applies-to <glob>',
      'tool-name glob this feedback/caution applies to, optionally with an argument glob: Bash(git push*) (repeatable)',
      collect,
      [],
    )
    .option(
      '--on-match <action>',
      "what the PreToolUse hook does when applies_to matches a call: warn (default), ask or deny (the memory's text is the reason)",
    )
    .option('--repeat', 'warn at every matching call, not once per session')
    .option('--replace', 'overwrite an existing memory of the same name')
    .option(
      '--global',
      'for every project (default inside a project: this project only, except --type user, which is global)',
    )
    .option('--home <dir>', 'home directory (default: $FIRSTLIGHT_HOME or ~/.firstlight)')
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      '\nExample:\n  echo "Alex prefers PRs under 300 lines." | firstlight remember --type user --name "Alex PR size" --tag portal\n\nInside a project (a directory with .firstlight/ or a git repository) the memory belongs to it:\nrecall in other projects leaves it out. Secrets and <private>…</private> blocks are redacted\nbefore writing. Similar existing memories are listed, never merged.',
    )
    .action(async (options: RememberOptions) => {
      const { UserError } = await import('../../core/index.js');
      const { createMind, openRecallIndex, rememberIn } = await import('../../mind/index.js');
      const content = await readStdin();
      if (content.trim() === '') {
        throw new UserError('no content on stdin', {
          code: 'INVALID_ARGUMENT',
          hint: 'pipe the memory text in: echo "..." | firstlight remember --type note',
        });
      }
      const home = existingHome(options);
      const mind = createMind({ home, projectDir: process.cwd() });
      let index: ReturnType<typeof openRecallIndex> | undefined;
      const recall = () => {
        index ??= openRecallIndex(mind);
        return index;
      };
      const result = await rememberIn(
        { mind, recall },
        {
          content,
          type: options.type,
          name: options.name,
          description: options.description,
          tags: options.tag,
          applies_to: options.appliesTo,
          ...(options.onMatch ? { on_match: options.onMatch as 'warn' | 'ask' | 'deny' } : {}),
          ...(options.repeat ? { repeat: true } : {}),
          replace: options.replace ?? false,
          ...(options.global ? { scope: 'global' as const } : {}),
        },
      );
      print(options.json, result, () => {
        const lines = [
          `firstlight: ${result.replaced ? 'replaced' : 'remembered'} "${result.name}" (${result.type}${result.project ? `, project ${result.project.name}` : ', global'}) in memory/${result.file}`,
        ];
        if (result.redacted) {
          const kinds = Object.entries(result.redacted).map(([kind, n]) => `${kind} ${n}`);
          lines.push(`  redacted before writing: ${kinds.join(', ')}`);
        }
        if (result.similar.length > 0) {
          lines.push(
            '  similar memories (nothing merged; `firstlight memory show NAME`, then forget or --replace):',
          );
          for (const s of result.similar)
            lines.push(`    ${s.score.toFixed(2)}  ${s.name}  (memory/${s.file})`);
        }
        return lines.join('\n');
      });
      index?.close();
      mind.close();
    });
}
