import type { Command } from 'commander';
import type { HomeOption } from '../io.js';

export function registerSessions(program: Command): void {
  program
    .command('sessions')
    .description('list the session starts the home recorded (sessions.jsonl), newest first')
    .option('--limit <n>', 'how many (newest first)', '20')
    .option('--home <dir>', 'home directory (default: $FIRSTLIGHT_HOME or ~/.firstlight)')
    .option('--json', 'print JSON: {sessions: [{session_id, at}], total, problems}')
    .action(async (options: HomeOption & { limit: string; json?: boolean }) => {
      const { ensureHome } = await import('../../core/index.js');
      const { homeFrom, print, positiveInt } = await import('../io.js');
      const { humanDuration, readSessionHistory } = await import('../../mind/index.js');
      const limit = positiveInt('--limit', options.limit);
      const home = homeFrom(options);
      ensureHome(home);
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
        if (lines.length === 0) lines.push('firstlight: no sessions recorded yet');
        else if (result.total > lines.length)
          lines.push(`… ${result.total - lines.length} older (--limit ${result.total})`);
        for (const p of result.problems) lines.push(`problem: ${p}`);
        return lines.join('\n');
      });
    });
}
