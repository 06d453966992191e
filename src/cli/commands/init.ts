import type { Command } from 'commander';
import type { PersonaAnswers } from '../../core/index.js';
import { type HomeOption, homeFrom, print } from '../io.js';

interface InitOptions extends HomeOption {
  name?: string;
  user?: string;
  style?: string;
  example?: boolean;
  force?: boolean;
  json?: boolean;
}

export function registerInit(program: Command): void {
  program
    .command('init')
    .description(
      'make your own mind: a short persona and an empty memory (asks a few questions in a terminal)',
    )
    .option('--home <dir>', 'home directory (default: $FIRSTLIGHT_HOME or ~/.firstlight)')
    .option('--name <name>', 'the persona\'s name (default: "Firstlight")')
    .option('--user <text>', 'who you are, in a line: name, role, what you work on')
    .option('--style <text>', 'how you like to work with the agent')
    .option('--example', 'copy the bundled demo instead (persona "Wren" and fifteen fictional memories)')
    .option('--force', 'add missing files to a non-empty directory (existing files are kept)')
    .option('--json', 'print JSON (never asks)')
    .addHelpText(
      'after',
      [
        '',
        'In a terminal, without --name/--user/--style, init asks for them (Enter keeps the default).',
        'Elsewhere it takes the flags. Examples:',
        '  firstlight init',
        '  firstlight init --name Kestrel --user "Ada, data engineer on the billing team" --style "terse; tests first"',
        '  firstlight init --example --home /tmp/demo-home',
      ].join('\n'),
    )
    .action(async (options: InitOptions) => {
      const { createHome, DEFAULT_PERSONA, initHome, UserError } = await import('../../core/index.js');
      const dir = homeFrom(options);
      const answered = [options.name, options.user, options.style].some((v) => v !== undefined);
      if (options.example && answered) {
        throw new UserError('--example copies the demo persona: it takes no --name, --user or --style', {
          code: 'INVALID_ARGUMENT',
          hint: 'pass --example alone, or leave it out to make your own persona',
        });
      }
      if (options.name !== undefined && !/^[^\n\r]{1,60}$/.test(options.name.trim())) {
        throw new UserError(`--name must be one line of 1-60 characters, not "${options.name}"`, {
          code: 'INVALID_ARGUMENT',
          hint: 'pass a short name, e.g. --name Kestrel',
        });
      }
      let result: { dir: string; created: boolean };
      let persona: string;
      if (options.example) {
        result = initHome(dir, { force: options.force ?? false });
        persona = 'Wren (the bundled demo)';
      } else {
        const interactive =
          !answered && !options.json && process.stdin.isTTY === true && process.stdout.isTTY === true;
        const answers: PersonaAnswers = interactive
          ? await ask(DEFAULT_PERSONA)
          : {
              name: options.name?.trim() || DEFAULT_PERSONA.name,
              user: options.user ?? DEFAULT_PERSONA.user,
              style: options.style ?? DEFAULT_PERSONA.style,
            };
        result = createHome(dir, answers, { force: options.force ?? false });
        persona = answers.name;
      }
      print(options.json, { ...result, persona }, () =>
        [
          `firstlight: home ready at ${result.dir} (persona ${persona})`,
          `  persona: ${result.dir}/persona/agent_system.md (edit it: it is read at every session start)`,
          `  memory:  ${result.dir}/memory/ (${options.example ? 'the demo memories' : 'empty'})`,
          `  personas: ${result.dir}/personas/ (explorer, planner, builder, auditor, resolver: firstlight runtime demo)`,
          '  next: in your project, firstlight install claude (or codex, gemini, copilot, cursor, vscode, all)',
          '        then firstlight doctor',
        ].join('\n'),
      );
    });
}

/** The three questions, each with its default (Enter keeps it). */
async function ask(defaults: PersonaAnswers): Promise<PersonaAnswers> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const question = async (text: string, fallback: string) =>
      (await rl.question(fallback ? `${text} [${fallback}]: ` : `${text}: `)).trim() || fallback;
    process.stdout.write('firstlight init: a few questions (Enter keeps the default)\n');
    const name = await question("The persona's name", defaults.name);
    const user = await question('Who are you (name, role, what you work on)', defaults.user);
    const style = await question('How do you like to work', defaults.style);
    return { name, user, style };
  } finally {
    rl.close();
  }
}
