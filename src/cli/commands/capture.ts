import { type Command, Option } from 'commander';
import { HOME_HELP, JSON_HELP, PROJECT_HELP, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';

interface CaptureCliOptions extends HomeOption {
  session?: string;
  transcript?: string;
  host?: string;
  project?: string;
  json?: boolean;
  worker?: boolean;
}

/** Hosts whose transcripts are read in their own format; the rest imitate Claude Code's. */
const FORMAT_OF: Record<string, 'claude' | 'codex' | 'gemini' | 'copilot'> = {
  codex: 'codex',
  gemini: 'gemini',
  copilot: 'copilot',
};

/** `firstlight capture`: run the queued captures and wait, or capture one session now. */
export function registerCapture(program: Command): void {
  const capture = program
    .command('capture')
    .description(
      'turn finished sessions into memories (no model): run the queue and wait, or one session now',
    )
    .option('--session <id>', 'capture this session now (its queued job, or --transcript)')
    .option('--transcript <file>', "the session's transcript (with --session)")
    .option('--host <host>', 'the host that wrote the transcript: claude, codex, gemini, … (default claude)')
    .option('--project <dir>', PROJECT_HELP)
    .option('--home <dir>', HOME_HELP)
    .option('--json', JSON_HELP)
    .addOption(new Option('--worker', 'run as the detached worker a hook starts').hideHelp());
  withExamples(
    capture,
    [
      'firstlight capture',
      'firstlight capture --json',
      'firstlight capture --session 5f1c --transcript ~/.claude/projects/-srv-app/5f1c.jsonl --host claude',
      'firstlight memory review',
    ],
    [
      'The Stop, SessionEnd and PreCompact hooks queue each session and a detached worker captures it;',
      'this runs what is still queued. capture: off in firstlight.yaml (home or <project>/.firstlight/) opts out.',
      'capture.curator.substrate (off by default) adds a model pass within capture.curator.session_tokens and daily_tokens.',
    ],
  ).action(async (options: CaptureCliOptions) => {
    const { existingHome, print } = await import('../io.js');
    const { captureSession, runQueue } = await import('../../capture/index.js');
    const home = existingHome(options);
    if (options.worker) {
      // The detached worker: no output, never waits for another worker (that one runs the queue).
      await runQueue({ home, wait: false });
      return;
    }
    let reports: import('../../capture/index.js').CaptureReport[];
    if (options.session) {
      const { queuedJobs } = await import('../../capture/index.js');
      const { UserError } = await import('../../core/index.js');
      if (!options.transcript && queuedJobs(home).length === 0)
        throw new UserError('--session needs --transcript when the session is not queued', {
          code: 'INVALID_ARGUMENT',
          hint: '--transcript FILE: the host transcript of that session (and --host HOST when it is not Claude Code)',
        });
      const host = options.host ?? 'claude';
      reports = options.transcript
        ? [
            await captureSession(
              {
                session: options.session,
                host,
                transcript: options.transcript,
                format: FORMAT_OF[host] ?? 'claude',
                cwd: options.project ?? process.cwd(),
                event: 'cli',
                queued_at: new Date().toISOString(),
              },
              { home },
            ),
          ]
        : ((await runQueue({ home, wait: true })) ?? []).filter((r) => r.session === options.session);
    } else reports = (await runQueue({ home, wait: true })) ?? [];
    print(options.json, { captures: reports }, () => humanReports(reports));
  });
}

function humanReports(reports: import('../../capture/index.js').CaptureReport[]): string {
  if (reports.length === 0) return 'firstlight capture: nothing queued';
  return reports
    .map((r) => {
      const head = `session ${r.session} (${r.host}): ${r.status}${r.why ? ` (${r.why})` : ''}, ${r.ms} ms`;
      const lines = [
        ...r.wrote.map(
          (w) =>
            `  wrote ${w.type} "${w.name}"${w.action === 'added' ? '' : ` (${w.action}${w.supersedes ? ` "${w.supersedes}"` : ''})`}`,
        ),
        ...r.proposed.map((w) => `  proposed ${w.type} "${w.name}" (firstlight memory review)`),
        ...(r.digest ? [`  digest "${r.digest}"`] : []),
        ...(r.curator
          ? [
              `  curator ${r.curator.substrate}: ${r.curator.status}${r.curator.why ? ` (${r.curator.why})` : ''}${r.curator.tokens === null ? '' : `, ${r.curator.tokens} tokens`}; today ${r.curator.day.used} / ${r.curator.day.budget}`,
            ]
          : []),
        ...r.skipped.map((s) => `  skipped "${s.what}": ${s.why}`),
      ];
      return [head, ...lines].join('\n');
    })
    .join('\n');
}
