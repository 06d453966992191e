import type { Command } from 'commander';
import { HOME_HELP, JSON_HELP, PROJECT_HELP, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';

export function registerDoctor(program: Command): void {
  const doctor = program
    .command('doctor')
    .description(
      'check every installed host: config, bootstrap block, hooks, and that the server answers bootstrap_session',
    )
    .option('--project <dir>', PROJECT_HELP)
    .option('--home <dir>', HOME_HELP)
    .option('--json', JSON_HELP);
  withExamples(
    doctor,
    ['firstlight doctor', 'firstlight doctor --project ~/src/app --json'],
    [
      'Exit code 0 when every installed host on this machine passes, 1 otherwise (and when nothing is',
      'installed). A host whose program is not on this machine (no `codex` on PATH, …) is reported as',
      'skipped with how to install it; its files are still checked, and only its server check (does',
      'the command answer bootstrap_session, not degraded) fails doctor.',
    ],
  ).action(async (flags: HomeOption & { project?: string; json?: boolean }) => {
    const { homedir } = await import('node:os');
    const { existingHome, print } = await import('../io.js');
    const { chooseProject, describeRoot } = await import('../project.js');
    const host = await import('../../host/index.js');
    const home = existingHome(flags);
    const root = chooseProject(flags.project, home);
    const project = root.dir;
    const report = await host.doctor({
      project,
      home,
      userHome: homedir(),
      env: process.env,
      platform: process.platform,
      probe: (server) => host.probeServer(server, { env: process.env, cwd: project }),
    });
    const failing = report.hosts.filter(
      (h) => !h.ok && (!h.skipped || h.checks.some((c) => c.check === 'server' && !c.ok)),
    );
    const error = report.ok
      ? undefined
      : failing.length > 0
        ? {
            code: 'DOCTOR_FAILED',
            message: `${failing.map((h) => `${h.name} (${h.scope})`).join(', ')} failing: ${failing
              .flatMap((h) => h.checks.filter((c) => !c.ok).map((c) => c.id))
              .join(', ')}`,
            fix: 'see each failing check in "hosts"; re-run firstlight install HOST to rewrite what install writes',
          }
        : {
            code: 'NOT_INSTALLED',
            message: report.note ?? 'nothing installed',
            fix: 'run firstlight install HOST',
          };
    print(flags.json, { ...report, project_found: root.found, ...(error ? { error } : {}) }, () => {
      const [head, ...rest] = host.renderDoctorReport(report).split('\n');
      return [head, describeRoot(root), ...rest].join('\n');
    });
    process.exitCode = report.ok ? 0 : 1;
  });
}
