import type { Command } from 'commander';
import { withExamples } from '../help-text.js';

/**
 * `firstlight help [TOPIC…]`: a page of the documentation shipped in the package (docs/TOPIC.md,
 * so it is there after a global install), else a command's usage (`help memory list`), else the
 * program's help with the list of topics.
 */
export function registerHelp(program: Command): void {
  const help = program
    .command('help')
    .description(
      "print a documentation page (firstlight help repl) or a command's usage (firstlight help memory list)",
    )
    .argument('[topic...]', 'a doc topic (see the list below) or a command and its subcommands');
  withExamples(help, [
    'firstlight help',
    'firstlight help hosts',
    'firstlight help memory list',
    'firstlight help repl | less',
  ]).action(async (words: string[]) => {
    const { docTopics, readDoc } = await import('./help-docs.js');
    const topics = docTopics();
    const topicList = `Documentation topics (firstlight help TOPIC): ${topics.join(', ')}`;
    if (words.length === 0) {
      program.outputHelp();
      process.stdout.write(`\n${topicList}\n`);
      return;
    }
    const [first = '', ...rest] = words;
    if (rest.length === 0 && topics.includes(first.toLowerCase())) {
      process.stdout.write(readDoc(first.toLowerCase()));
      const command = program.commands.find((c) => c.name() === first.toLowerCase());
      if (command) process.stdout.write(`\n(Command usage: firstlight ${command.name()} --help)\n`);
      return;
    }
    let command: Command | undefined = program;
    for (const word of words)
      command = command?.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (command && command !== program) {
      command.outputHelp();
      return;
    }
    const { UserError } = await import('../../core/index.js');
    const { closest, didYouMean } = await import('../suggest.js');
    const known = [...topics, ...program.commands.map((c) => c.name())];
    const close = didYouMean(closest(words.join(' '), known));
    throw new UserError(`no help topic or command "${words.join(' ')}"${close ? ` ${close}` : ''}`, {
      code: 'UNKNOWN_TOPIC',
      hint: `${topicList}; commands: firstlight --help`,
    });
  });
}
