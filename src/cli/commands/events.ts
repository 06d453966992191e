import type { Command } from 'commander';
import { UserError } from '../../core/index.js';
import type { HomeOption } from '../io.js';

interface EventsOptions extends HomeOption {
  since?: string;
  tool?: string;
  limit: string;
  json?: boolean;
}

export function registerEvents(program: Command): void {
  program
    .command('events')
    .description('list the observation events observe/reflect recorded (events/YYYY-MM-DD.jsonl)')
    .option('--since <when>', 'a duration back from now (30m, 2h, 7d, 1w) or an ISO date/time')
    .option('--tool <name>', 'only observe events of this tool (a glob: "git_*", "mcp__github__*")')
    .option('--limit <n>', 'the newest this many', '50')
    .option('--home <dir>', 'home directory (default: $FIRSTLIGHT_HOME or ~/.firstlight)')
    .option('--json', 'print JSON: {events, matched, since, tool}')
    .action(async (options: EventsOptions) => {
      const { ensureHome, homePaths, toolGlob } = await import('../../core/index.js');
      const { homeFrom, print, positiveInt } = await import('../io.js');
      const { listEvents } = await import('../../mind/index.js');
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
      const home = homeFrom(options);
      ensureHome(home);
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
        const lines = listing.events.map((e) => {
          const what =
            e.kind === 'observe'
              ? `${e.tool_name ?? '?'}${e.expected ? ` expected: ${clip(e.expected)}` : ''}${e.result ? ` result: ${clip(e.result)}` : ''}`
              : `${e.reflect_kind ?? ''}: ${clip(e.observation ?? '')}`;
          const pe = typeof e.prediction_error === 'number' ? `  prediction_error ${e.prediction_error}` : '';
          return `${e.ts}  ${e.kind.padEnd(7)} ${what}${pe}`;
        });
        if (lines.length === 0) lines.push('firstlight: no events match');
        else if (listing.matched > listing.events.length)
          lines.push(`… ${listing.matched - listing.events.length} older match (--limit ${listing.matched})`);
        if (listing.skipped_lines > 0) lines.push(`skipped ${listing.skipped_lines} unreadable line(s)`);
        return lines.join('\n');
      });
    });
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30m`, `2h`, `7d`, `1w` back from `now`, or an ISO date (`2026-11-20`) or date-time. */
export function parseSince(text: string, now: Date): Date {
  const duration = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(text.trim());
  if (duration) return new Date(now.getTime() - Number(duration[1]) * UNIT_MS[duration[2]!.toLowerCase()]!);
  if (/^\d{4}-\d{2}-\d{2}/.test(text.trim())) {
    const at = Date.parse(text.trim());
    if (!Number.isNaN(at)) return new Date(at);
  }
  throw new UserError(`--since "${text}" is neither a duration nor an ISO date`, {
    code: 'INVALID_ARGUMENT',
    hint: '--since 30m, 2h, 7d or 1w (back from now), or an ISO date/time such as 2026-11-20 or 2026-11-20T09:00:00Z',
  });
}

function clip(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
