import type { Command } from 'commander';
import { JSON_HELP, withExamples } from '../help-text.js';

interface DemoOptions {
  keep?: boolean;
  json?: boolean;
}

/** `firstlight runtime …`: the persona runtime's own commands (`invoke` and `journal` stand alone). */
export function registerRuntime(program: Command): void {
  const runtime = program
    .command('runtime')
    .description(
      'the persona runtime: a demo of its whole workflow (run a persona with `firstlight invoke`)',
    );
  withExamples(runtime, ['firstlight runtime demo', 'firstlight runtime demo --keep --json']);
  runtime
    .command('demo')
    .description(
      'run explorer → planner → builder → validator → resolver → re-validation on the scripted substrate in a temporary project, and print the journal as a story',
    )
    .option('--keep', 'keep the temporary project (its .firstlight/ holds the journal and handoffs)')
    .option('--json', `${JSON_HELP}: every result and the journal`)
    .addHelpText(
      'after',
      [
        '',
        'No model and no home needed: the bundled personas (examples/home/personas) play the bundled',
        'scripted sessions (examples/sessions). Exit 0 when every step completed with its handoff.',
        'Example:',
        '  firstlight runtime demo --keep',
      ].join('\n'),
    )
    .action(async (options: DemoOptions) => {
      const { mkdtempSync, rmSync } = await import('node:fs');
      const { tmpdir } = await import('node:os');
      const { join } = await import('node:path');
      const { journalStory, runDemo, DEMO_STEPS } = await import('../../runtime/index.js');
      const { print } = await import('../io.js');
      const dir = mkdtempSync(join(tmpdir(), 'firstlight-demo-'));
      try {
        const run = await runDemo(dir);
        print(
          options.json,
          { project: run.project, ok: run.ok, results: run.results, journal: run.journal },
          () => {
            const lines = [
              `firstlight runtime demo: ${DEMO_STEPS.length} sessions, each fresh, on the scripted substrate`,
              `project: ${run.project}${options.keep ? '' : ' (removed at the end; --keep keeps it)'}`,
              '',
            ];
            run.results.forEach((r, i) => {
              const m = r.meta;
              const end = m.handoff_id ? `→ ${m.handoff_id}` : (m.refusal_reason ?? m.failure_reason ?? '');
              lines.push(
                `  ${i + 1}. ${m.persona} as ${m.role} (${m.mode ?? 'no mode'})  ${r.status}  ${end}`,
              );
            });
            lines.push(
              '',
              'The journal, as a story:',
              ...journalStory(run.journal).map((line) => `  ${line}`),
            );
            return lines.join('\n');
          },
        );
        if (!run.ok) process.exitCode = 1;
      } finally {
        if (!options.keep) rmSync(dir, { recursive: true, force: true });
      }
    });
}
