import type { Command } from 'commander';
import { collect, HOME_HELP, JSON_HELP, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';

interface InternalizeOptions extends HomeOption {
  tail?: string;
  anchor: string[];
  trigger?: string;
  sessionId?: string;
  json?: boolean;
}

export function registerInternalize(program: Command): void {
  const internalize = program
    .command('internalize')
    .description('store the stream tail and anchors the next session wakes up reading (verbatim)')
    .option('--home <dir>', HOME_HELP)
    .option(
      '--tail <text>',
      'your last words, verbatim (default: stdin when it is not a terminal; "-" reads stdin)',
    )
    .option(
      '--anchor <text>',
      'a verbatim phrase to keep (repeatable; the newest five are injected)',
      collect,
      [],
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
    .option('--json', JSON_HELP);
  withExamples(
    internalize,
    [
      'firstlight internalize --tail "Halfway through the retry patch; next: the backoff test." --anchor "backoff caps at 30 s"',
      'echo "Halfway through the retry patch" | firstlight internalize',
      'firstlight packet --format markdown   # see what the next session reads',
    ],
    [
      'The tail replaces the previous one; anchors accumulate. The Stop hook that ends this turn keeps',
      "it (it replaces it only after the user's next prompt).",
    ],
  ).action(async (options: InternalizeOptions) => {
    const { internalize: store } = await import('../../resume/index.js');
    const { existingHome, print, readStdin } = await import('../io.js');
    const home = existingHome(options);
    // Text piped in is the tail (as `remember` reads its content): `echo … | firstlight internalize`.
    const fromStdin = options.tail === '-' || (options.tail === undefined && !process.stdin.isTTY);
    const tail = fromStdin ? (await readStdin()).replace(/\r?\n$/, '') : (options.tail ?? '');
    const result = await store({
      home,
      streamTail: tail,
      anchors: options.anchor.map((text) => ({ text, trigger: options.trigger })),
      sessionId: options.sessionId ?? null,
      fallbackKey: 'cli',
      source: 'cli',
      now: new Date(),
      fieldNames: { tail: fromStdin ? 'stdin' : '--tail', anchor: '--anchor' },
    });
    print(options.json, result, () =>
      [
        `firstlight: stored ${result.stream_tail_chars} characters of your last words${fromStdin ? ' (from stdin)' : ''}; ${result.anchors_stored} anchor${result.anchors_stored === 1 ? '' : 's'} kept${result.anchors_stored > result.anchors_next.length ? ` (the newest ${result.anchors_next.length} are shown next time)` : ''}${options.sessionId ? ` for session ${options.sessionId}` : ''}`,
        ...result.warnings.map((w) => `  warning: ${w}`),
      ].join('\n'),
    );
  });
}
