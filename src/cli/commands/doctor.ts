import type { Command } from 'commander';
import type { HomeOption } from '../io.js';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description(
      'check every installed host: config, bootstrap block, hooks, and that the server answers bootstrap_session',
    )
    .option(
      '--project <dir>',
      'project directory (default: the nearest directory up from here with a .firstlight/ or .git, else here)',
    )
    .option('--home <dir>', 'home directory (default: $FIRSTLIGHT_HOME or ~/.firstlight)')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', '\nExit code 0 when every check passes, 1 otherwise.')
    .action(async (flags: HomeOption & { project?: string; json?: boolean }) => {
      const { homedir } = await import('node:os');
      const { requireHome, resolveHome } = await import('../../core/index.js');
      const { chooseProject, describeRoot } = await import('../project.js');
      const host = await import('../../host/index.js');
      const home = resolveHome({ flag: flags.home }).dir;
      requireHome(home);
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
      const { print } = await import('../io.js');
      print(flags.json, { ...report, project_found: root.found }, () => {
        const [head, ...rest] = host.renderDoctorReport(report).split('\n');
        return [head, describeRoot(root), ...rest].join('\n');
      });
      process.exitCode = report.ok ? 0 : 1;
    });
}
