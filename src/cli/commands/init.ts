import type { Command } from 'commander';
import type { PersonaAnswers } from '../../core/index.js';
import { HOME_HELP, JSON_HELP, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';

interface InitOptions extends HomeOption {
  name?: string;
  user?: string;
  style?: string;
  example?: boolean;
  force?: boolean;
  json?: boolean;
}

export function registerInit(program: Command): void {
  const init = program
    .command('init')
    .description(
      'make your own mind: a short persona and an empty memory (asks a few questions in a terminal)',
    )
    .option('--home <dir>', HOME_HELP)
    .option('--name <name>', 'the persona\'s name (default: "Firstlight")')
    .option('--user <text>', 'who you are, in a line: name, role, what you work on')
    .option('--style <text>', 'how you like to work with the agent')
    .option('--example', 'copy the bundled demo instead (persona "Wren" and fifteen fictional memories)')
    .option('--force', 'add missing files to a non-empty directory (existing files are kept)')
    .option('--json', `${JSON_HELP}; never asks`);
  withExamples(
    init,
    [
      'firstlight init',
      'firstlight init --name Kestrel --user "Ada, data engineer on the billing team" --style "terse; tests first"',
      "printf 'Kestrel\\nAda, data engineer\\nterse; tests first\\n' | firstlight init",
      'firstlight init --example --home /tmp/demo-home',
    ],
    [
      'In a terminal, without --name/--user/--style, init asks for them (Enter keeps the default).',
      'From a pipe or a file it reads the three answers from stdin, one a line (a missing line keeps',
      'the default). Otherwise it takes the flags, and says on stderr when it used the defaults.',
    ],
  ).action(async (options: InitOptions) => {
    const { createHome, DEFAULT_PERSONA, initHome, UserError } = await import('../../core/index.js');
    const { homeFrom, print } = await import('../io.js');
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
    let answersFrom: 'flags' | 'terminal' | 'stdin' | 'defaults' | undefined;
    if (options.example) {
      result = initHome(dir, { force: options.force ?? false });
      persona = 'Wren (the bundled demo)';
    } else {
      const chosen = await chooseAnswers(options, answered, DEFAULT_PERSONA);
      answersFrom = chosen.from;
      if (chosen.from === 'stdin' && !/^[^\n\r]{1,60}$/.test(chosen.answers.name)) {
        throw new UserError(
          `the name on stdin's first line must be 1-60 characters, not "${chosen.answers.name}"`,
          {
            code: 'INVALID_ARGUMENT',
            hint: "put the persona's name on the first line, e.g. printf 'Kestrel\\n' | firstlight init",
          },
        );
      }
      result = createHome(dir, chosen.answers, { force: options.force ?? false });
      persona = chosen.answers.name;
      if (chosen.from === 'defaults' && !options.json) {
        process.stderr.write(
          `firstlight init: stdin is not a terminal and no --name, --user or --style was given: used the defaults (persona "${persona}", no user line).\n` +
            '  To choose: firstlight init --name NAME --user "who you are" --style "how you work" (or pipe the three answers, one a line)\n',
        );
      }
    }
    print(options.json, { ...result, persona, ...(answersFrom ? { answers_from: answersFrom } : {}) }, () =>
      [
        `firstlight: home ready at ${result.dir} (persona ${persona}${answersFrom === 'stdin' ? ', answers read from stdin' : ''})`,
        `  persona: ${result.dir}/persona/agent_system.md (edit it: it is read at every session start)`,
        `  memory:  ${result.dir}/memory/ (${options.example ? 'the demo memories' : 'empty'})`,
        `  personas: ${result.dir}/personas/ (explorer, planner, builder, auditor, resolver: firstlight runtime demo)`,
        '  next: in your project, firstlight install claude (or codex, gemini, copilot, cursor, vscode, all)',
        '        then firstlight doctor',
      ].join('\n'),
    );
  });
}

/**
 * Where the persona answers come from: the flags; else a terminal asks; else a pipe or file on
 * stdin gives them one a line; else the defaults (said on stderr by the caller).
 */
async function chooseAnswers(
  options: InitOptions,
  answered: boolean,
  defaults: PersonaAnswers,
): Promise<{ answers: PersonaAnswers; from: 'flags' | 'terminal' | 'stdin' | 'defaults' }> {
  if (answered) {
    return {
      from: 'flags',
      answers: {
        name: options.name?.trim() || defaults.name,
        user: options.user ?? defaults.user,
        style: options.style ?? defaults.style,
      },
    };
  }
  if (!options.json && process.stdin.isTTY === true && process.stdout.isTTY === true) {
    return { from: 'terminal', answers: await ask(defaults) };
  }
  const { readStdin, stdinIsPipeOrFile } = await import('../io.js');
  if (!options.json && stdinIsPipeOrFile()) {
    const lines = (await readStdin()).split(/\r?\n/).map((line) => line.trim());
    if (lines.some((line) => line !== '')) {
      return {
        from: 'stdin',
        answers: {
          name: lines[0] || defaults.name,
          user: lines[1] || defaults.user,
          style: lines[2] || defaults.style,
        },
      };
    }
  }
  return { from: 'defaults', answers: { ...defaults } };
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
