import type { Command } from 'commander';
import { HOME_HELP, numberOption, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';

/** What an empty list says: what records a session, and how to set that up. */
export const NO_SESSIONS =
  'firstlight: no sessions recorded yet. A session is recorded when an agent calls bootstrap_session ' +
  '(a host set up with `firstlight install HOST`, or `firstlight call bootstrap_session`).';

export function registerSessions(program: Command): void {
  const sessions = program
    .command('sessions')
    .description('list the session starts the home recorded (sessions.jsonl), newest first')
    .addOption(numberOption('--limit <n>', 'how many (newest first)', 20))
    .option('--home <dir>', HOME_HELP)
    .option('--json', 'print JSON: {ok, sessions: [{session_id, at}], total, problems}');
  withExamples(sessions, ['firstlight sessions', 'firstlight sessions --limit 5 --json']).action(
    async (options: HomeOption & { limit: string | number; json?: boolean }) => {
      const { existingHome, print, positiveInt } = await import('../io.js');
      const { humanDuration, readSessionHistory } = await import('../../mind/index.js');
      const limit = positiveInt('--limit', options.limit);
      const home = existingHome(options);
      const history = readSessionHistory(home);
      const now = Date.now();
      const result = {
        sessions: history.sessions.slice(0, limit),
        total: history.sessions.length,
        problems: history.problems,
      };
      print(options.json, result, () => {
        const lines = result.sessions.map((s) => {
          const ago = humanDuration(Math.max(0, Math.round((now - Date.parse(s.at)) / 1000)));
          return `${s.at}  ${ago.padEnd(16)} ${s.session_id ?? '(no session id)'}`;
        });
        if (lines.length === 0) lines.push(NO_SESSIONS);
        else if (result.total > lines.length)
          lines.push(`… ${result.total - lines.length} older (--limit ${result.total})`);
        for (const p of result.problems) lines.push(`problem: ${p}`);
        return lines.join('\n');
      });
    },
  );
}
