/**
 * One CLI voice, checked over every command the program registers (walked from the built
 * program, so a command added later is checked too): an example in each help, numbers shown as
 * numbers, one wording of the project-root rule and of --home, one name per idea.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { HOME_HELP, PROJECT_HELP, PROJECT_OR_HOME_HELP } from '../../../src/cli/help-text.js';
import { createProgram } from '../../../src/cli/run.js';

function walk(command: Command, path: string[] = []): { path: string; command: Command }[] {
  return command.commands.flatMap((sub) => {
    const here = [...path, sub.name()];
    return [{ path: here.join(' '), command: sub }, ...walk(sub, here)];
  });
}

/** The whole help a person sees for `firstlight <path> --help`, after-text included. */
function helpOf(command: Command): string {
  let out = '';
  command.configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s) });
  command.outputHelp();
  return out;
}

const program = createProgram('0.0.0');
const commands = walk(program);

describe('every command’s help', () => {
  it('walks every command (the tree is not empty, subcommands included)', () => {
    const paths = commands.map((c) => c.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'init',
        'call',
        'memory list',
        'memory forget',
        'repl exec',
        'repl capability add',
        'help',
      ]),
    );
  });

  it.each(commands)('firstlight $path --help shows an example', ({ command }) => {
    expect(helpOf(command)).toMatch(/\nExamples?:\n {2}\S/);
  });

  it.each(commands)('firstlight $path --help prints numeric defaults as numbers', ({ command }) => {
    expect(helpOf(command)).not.toMatch(/\(default: "\d+"\)/);
  });

  it('the program’s own help has examples and says what --json answers look like', () => {
    const help = helpOf(program);
    expect(help).toMatch(/Examples:\n {2}firstlight init/);
    expect(help).toContain('"ok": true');
    expect(help).toContain('{"ok": false, "error": {"code", "message", "fix"}}');
  });

  it('words the project-root rule one way: every --project DIR is PROJECT_HELP (or, for the runtime ledger, its home variant)', () => {
    // `memory list --project` (no value) filters to this project's memories: another idea.
    const projects = commands.flatMap(({ path, command }) =>
      command.options
        .filter((o) => o.long === '--project' && o.required)
        .map((o) => ({ path, description: o.description })),
    );
    expect(projects.length).toBeGreaterThan(6);
    for (const { path, description } of projects) {
      expect([PROJECT_HELP, PROJECT_OR_HOME_HELP], path).toContain(description);
    }
    expect(
      PROJECT_OR_HOME_HELP.startsWith(
        PROJECT_HELP.replace(' root (default', ' whose .firstlight/ holds the ledger (default').split(
          ', else here',
        )[0]!,
      ),
    ).toBe(true);
  });

  it('describes --home the same way everywhere', () => {
    for (const { path, command } of commands) {
      for (const option of command.options.filter((o) => o.long === '--home')) {
        expect(option.description, path).toContain('(default: $FIRSTLIGHT_HOME, else ~/.firstlight)');
      }
    }
    expect(HOME_HELP).toContain('$FIRSTLIGHT_HOME, else ~/.firstlight');
  });

  it('uses --limit for "how many" everywhere; recall keeps --k as a hidden alias', () => {
    const counts = commands.flatMap(({ path, command }) =>
      command.options.filter((o) => ['--limit', '--k'].includes(o.long ?? '')).map((o) => ({ path, o })),
    );
    const shown = counts.filter(({ o }) => !o.hidden).map(({ path, o }) => `${path} ${o.long}`);
    expect(shown.sort()).toEqual(['events --limit', 'recall --limit', 'sessions --limit']);
    const recall = commands.find((c) => c.path === 'recall')!.command;
    expect(helpOf(recall)).not.toContain('--k');
    expect(recall.options.find((o) => o.long === '--k')?.hidden).toBe(true);
  });

  it('memory forget answers to rm, delete and remove; memory list to ls', () => {
    const memory = commands.find((c) => c.path === 'memory')!.command;
    const forget = memory.commands.find((c) => c.name() === 'forget')!;
    expect(forget.aliases()).toEqual(['rm', 'delete', 'remove']);
    expect(memory.commands.find((c) => c.name() === 'list')!.aliases()).toEqual(['ls']);
  });
});
