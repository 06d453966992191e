/**
 * Help text every command shares, worded once, and the helpers that put examples and notes in a
 * command's help. Light on purpose: the command modules import this while the program is built,
 * before any action runs, so `firstlight --help` loads nothing but commander and these strings.
 */
import { type Command, Option } from 'commander';

/** `--home`, the same words on every command. */
export const HOME_HELP = 'home directory (default: $FIRSTLIGHT_HOME, else ~/.firstlight)';

/**
 * `--project`: the one project-root rule (guidance's findProject): the nearest directory up from
 * here with a `.firstlight/`, else the nearest with a `.git`, else the current directory.
 */
export const PROJECT_HELP =
  'project root (default: the nearest directory up from here with a .firstlight/, else with a .git, else here)';

/** `--json`, the same words on every command; the shape is in the program's help. */
export const JSON_HELP = 'print JSON ({"ok": true, …} on stdout)';

/** The shape every `--json` answer takes, for the program's help and the docs. */
export const JSON_SHAPE =
  'Under --json every answer is one JSON object on stdout with "ok": true, or on failure\n' +
  '{"ok": false, "error": {"code", "message", "fix"}} (exit 1 on a runtime failure, 2 on bad usage).';

/** Adds an "Examples:" block (and optional notes before it) after a command's help. */
export function withExamples(
  command: Command,
  examples: readonly string[],
  notes?: readonly string[],
): Command {
  const lines = [
    ...(notes && notes.length > 0 ? ['', ...notes] : []),
    '',
    examples.length === 1 ? 'Example:' : 'Examples:',
    ...examples.map((line) => `  ${line}`),
  ];
  return command.addHelpText('after', lines.join('\n'));
}

/** Collects a repeatable option's values: `--tag a --tag b` → ['a', 'b']. */
export const collect = (value: string, previous: string[]): string[] => [...previous, value];

/**
 * An option whose default is a number, shown as one in the help (`(default: 20)`, where
 * `.option()` takes only string defaults and prints `(default: "20")`). The action still checks
 * the value: a given one arrives as the text typed.
 */
export function numberOption(flags: string, description: string, defaultValue: number): Option {
  return new Option(flags, description).default(defaultValue);
}

/**
 * `--project` of the persona runtime (invoke, journal): the same search, but with no
 * `.firstlight/` or `.git` above, its ledger is the home's.
 */
export const PROJECT_OR_HOME_HELP =
  'project whose .firstlight/ holds the ledger (default: the nearest directory up from here with a .firstlight/, else with a .git; with neither, the home)';
