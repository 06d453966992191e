/**
 * Near-miss suggestions: a mistyped command, tool, topic or memory name answers with the close
 * ones. Light: unknown-command handling runs while commander parses.
 */
import type { Command } from 'commander';
import { closest } from '../core/text/closest.js';

export { closest, editDistance } from '../core/text/closest.js';

/** `(did you mean recall?)` or `(did you mean a, b or c?)`; empty for no candidates. */
export function didYouMean(names: readonly string[]): string {
  if (names.length === 0) return '';
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  return `(did you mean ${list}?)`;
}

/**
 * Unknown subcommands of `command` fail as commander's do (exit 2), with close names and words
 * people reach for (`search` → recall) suggested.
 */
export function suggestUnknownCommands(command: Command, synonyms: Record<string, string> = {}): void {
  command.on('command:*', (operands: string[]) => {
    const name = operands[0] ?? '';
    // Each command once, by its name: "lsit" is close to `ls` and `list`, one command (issue 38).
    const commandOf = new Map(
      command.commands.flatMap((c) => [c.name(), ...c.aliases()].map((n) => [n, c.name()] as const)),
    );
    commandOf.delete('help');
    const synonym = Object.hasOwn(synonyms, name.toLowerCase()) ? synonyms[name.toLowerCase()] : undefined;
    const names = synonym
      ? [synonym]
      : [...new Set(closest(name, [...commandOf.keys()]).map((n) => commandOf.get(n) ?? n))];
    const hint = didYouMean(names);
    command.error(`error: unknown command '${name}'${hint ? `\n${hint}` : ''}`, {
      code: 'commander.unknownCommand',
      exitCode: 2,
    });
  });
}
