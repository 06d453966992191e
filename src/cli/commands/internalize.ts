import type { Command } from 'commander';
import { type HomeOption, homeFrom, print, readStdin } from '../io.js';

interface InternalizeOptions extends HomeOption {
  tail?: string;
  anchor: string[];
  trigger?: string;
  sessionId?: string;
  json?: boolean;
}

export function registerInternalize(program: Command): void {
  program
    .command('internalize')
    .description('store the stream tail and anchors the next session wakes up reading (verbatim)')
    .option('--home <dir>', 'home directory (default: $FIRSTLIGHT_HOME or ~/.firstlight)')
    .option('--tail <text>', 'your last words, verbatim ("-" reads them from stdin)')
    .option(
      '--anchor <text>',
      'a verbatim phrase to keep (repeatable; the newest five are injected)',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option(
      '--trigger <type>',
      'why the anchors matter: resonance, decision, insight, correction, …',
      'resonance',
    )
    .option(
      '--session-id <id>',
      "the host session id (keys per-session resumption; the Stop hook keeps this session's deliberate tail)",
    )
    .option('--json', 'print JSON')
    .addHelpText(
      'after',
      "\nThe tail replaces the previous one; anchors accumulate. The Stop hook that ends this turn keeps\nit (it replaces it only after the user's next prompt). See the result with:\n  firstlight packet --format markdown",
    )
    .action(async (options: InternalizeOptions) => {
      const { ensureHome } = await import('../../core/index.js');
      const { internalize } = await import('../../resume/index.js');
      const home = homeFrom(options);
      ensureHome(home);
      const tail = options.tail === '-' ? await readStdin() : (options.tail ?? '');
      const result = await internalize({
        home,
        streamTail: tail,
        anchors: options.anchor.map((text) => ({ text, trigger: options.trigger })),
        sessionId: options.sessionId ?? null,
        fallbackKey: 'cli',
        source: 'cli',
        now: new Date(),
        fieldNames: { tail: '--tail', anchor: '--anchor' },
      });
      print(options.json, result, () =>
        [
          `firstlight: stored ${result.stream_tail_chars} characters of your last words; ${result.anchors_stored} anchor${result.anchors_stored === 1 ? '' : 's'} kept${result.anchors_stored > result.anchors_next.length ? ` (the newest ${result.anchors_next.length} are shown next time)` : ''}${options.sessionId ? ` for session ${options.sessionId}` : ''}`,
          ...result.warnings.map((w) => `  warning: ${w}`),
        ].join('\n'),
      );
    });
}
