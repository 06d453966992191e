import type { Command } from 'commander';
import { HOME_HELP, numberOption, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';
import { describeEvent } from './event-line.js';

interface EventsOptions extends HomeOption {
  since?: string;
  tool?: string;
  limit: string | number;
  json?: boolean;
}

/** What an empty event store says: what records events, and how to set that up. */
export const NO_EVENTS =
  'firstlight: no events recorded yet. The observe and reflect tools record them, and so do the ' +
  'hooks on every tool call of a host set up with `firstlight install HOST`.';

export function registerEvents(program: Command): void {
  const events = program
    .command('events')
    .description(
      'list the observation events observe/reflect and the hooks recorded (events/YYYY-MM-DD.jsonl)',
    )
    .option('--since <when>', 'a duration back from now (30m, 2h, 7d, 1w) or an ISO date/time')
    .option('--tool <name>', 'only observe events of this tool (a glob: "git_*", "mcp__github__*")')
    .addOption(numberOption('--limit <n>', 'the newest this many', 50))
    .option('--home <dir>', HOME_HELP)
    .option('--json', 'print JSON: {ok, events, matched, since, tool}');
  withExamples(
    events,
    ['firstlight events --since 2h', 'firstlight events --tool Bash --limit 10', 'firstlight events --json'],
    [
      'Each line: time, kind, the call with a short summary of its arguments, and how it ended',
      '(ok, ERROR, or DENIED by the gate or a memory), with [hook HOST] when a host hook recorded it.',
    ],
  ).action(async (options: EventsOptions) => {
    const { homePaths, toolGlob, UserError } = await import('../../core/index.js');
    const { existingHome, print, positiveInt } = await import('../io.js');
    const { listEvents } = await import('../../mind/index.js');
    const { parseSince } = await import('./since.js');
    const limit = positiveInt('--limit', options.limit);
    const since = options.since === undefined ? undefined : parseSince(options.since, new Date());
    let tool: ((name: string) => boolean) | undefined;
    if (options.tool !== undefined) {
      try {
        tool = toolGlob(options.tool);
      } catch (error) {
        throw new UserError(`--tool "${options.tool}" is not a valid glob: ${(error as Error).message}`, {
          code: 'INVALID_ARGUMENT',
          hint: 'pass a tool name or a glob such as "Bash" or "git_*"',
        });
      }
    }
    const home = existingHome(options);
    const listing = listEvents(homePaths(home).events, {
      limit,
      ...(since ? { since } : {}),
      ...(tool ? { tool } : {}),
    });
    const result = {
      ...listing,
      since: since?.toISOString() ?? null,
      tool: options.tool ?? null,
    };
    print(options.json, result, () => {
      const lines = listing.events.map(describeEvent);
      if (lines.length === 0)
        lines.push(since || tool ? 'firstlight: no events match --since/--tool' : NO_EVENTS);
      else if (listing.matched > listing.events.length)
        lines.push(`… ${listing.matched - listing.events.length} older match (--limit ${listing.matched})`);
      if (listing.skipped_lines > 0) lines.push(`skipped ${listing.skipped_lines} unreadable line(s)`);
      return lines.join('\n');
    });
  });
}
