/**
 * The R-suite's summary: one row per area (a test file's top describe), with the cases tried,
 * the failures, the time, and the figures the probes recorded (`figure()` in helpers.ts).
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class TableReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const rows: { area: string; cases: number; failed: number; ms: number; figures: string[] }[] = [];
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const area = test.parent.type === 'suite' ? topSuite(test.parent) : module.moduleId;
        let row = rows.find((r) => r.area === area);
        if (!row) {
          row = { area, cases: 0, failed: 0, ms: 0, figures: [] };
          rows.push(row);
        }
        row.cases++;
        const state = test.result().state;
        if (state === 'failed') row.failed++;
        row.ms += test.diagnostic()?.duration ?? 0;
        for (const [name, value] of Object.entries(test.meta().figures ?? {}))
          row.figures.push(`${name} ${value}`);
      }
    }
    const width = Math.max(4, ...rows.map((r) => r.area.length));
    const lines = [
      '',
      'firstlight reliability suite',
      `${'area'.padEnd(width)}  cases  failed  time (s)  figures`,
      `${'-'.repeat(width)}  -----  ------  --------  -------`,
      ...rows.map(
        (r) =>
          `${r.area.padEnd(width)}  ${String(r.cases).padStart(5)}  ${String(r.failed).padStart(6)}  ${(r.ms / 1000).toFixed(1).padStart(8)}  ${r.figures.join('; ')}`,
      ),
      `${'total'.padEnd(width)}  ${String(rows.reduce((n, r) => n + r.cases, 0)).padStart(5)}  ${String(rows.reduce((n, r) => n + r.failed, 0)).padStart(6)}`,
      '',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: a suite or a module, walked by its parents
function topSuite(suite: any): string {
  let top = suite;
  while (top.parent && top.parent.type === 'suite') top = top.parent;
  return top.name as string;
}
