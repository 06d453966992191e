import type { Command } from 'commander';
import { HOST_IDS, SCOPES } from '../../host/ids.js';
import { JSON_HELP, PROJECT_HELP, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';

export interface InstallFlags extends HomeOption {
  scope: string;
  project?: string;
  dryRun?: boolean;
  json?: boolean;
  withRepl?: boolean;
  copilotUser?: boolean;
}

const HOST_HELP = `${HOST_IDS.join(' | ')} | all`;

/** Names people use for a host, suggested when HOST is not one of ours. */
const HOST_SYNONYMS: Record<string, string> = {
  'claude-code': 'claude',
  'copilot-cli': 'copilot',
  code: 'vscode',
  'vs-code': 'vscode',
  'codex-cli': 'codex',
  'gemini-cli': 'gemini',
};

function addInstallOptions(command: Command, verb: 'install' | 'uninstall'): Command {
  const writes = verb === 'install' ? 'writes' : 'undoes';
  return command
    .argument('<host>', HOST_HELP)
    .option(
      '--scope <scope>',
      `${SCOPES.join(' | ')}: user ${writes} the user-global files (~/.claude, ~/.codex, …)`,
      'project',
    )
    .option('--project <dir>', PROJECT_HELP)
    .option(
      '--home <dir>',
      'home directory the server and hooks use (default: $FIRSTLIGHT_HOME, else ~/.firstlight)',
    )
    .option(
      '--with-repl',
      verb === 'install'
        ? 'also register the REPL harness (MCP server "firstlight-repl") beside the mind in each MCP config'
        : 'accepted for symmetry: uninstall always takes out a "firstlight-repl" entry install wrote',
    )
    .option(
      '--copilot-user',
      verb === 'install'
        ? "with `all` at project scope: also write Copilot CLI's user MCP config (~/.copilot/mcp-config.json, read by every Copilot CLI session of this user)"
        : 'accepted for symmetry: `uninstall all` leaves the user-scope Copilot install to `uninstall copilot --scope user`',
    )
    .option('--dry-run', `print the diff ${verb} would make to every file, write nothing`)
    .option('--json', JSON_HELP);
}

/** Shared by install and uninstall: parse the host and scope, build the install context. */
export async function installSetup(hostArg: string, flags: InstallFlags, verb: 'install' | 'uninstall') {
  const { homedir } = await import('node:os');
  const { fileURLToPath } = await import('node:url');
  const { UserError, requireHome, resolveHome } = await import('../../core/index.js');
  const host = await import('../../host/index.js');
  // The names people also use (`claude-code`, `vs-code`) are the host (issue 38).
  const named = HOST_SYNONYMS[hostArg.toLowerCase()] ?? hostArg;
  const hosts = named === 'all' ? [...host.HOST_IDS] : host.isHostId(named) ? [named] : null;
  if (!hosts) {
    const { closest, didYouMean } = await import('../suggest.js');
    // Each host once: "claud" is close to claude and to claude-code, which are one host.
    const close = didYouMean([
      ...new Set(
        closest(hostArg, [...host.HOST_IDS, 'all', ...Object.keys(HOST_SYNONYMS)]).map(
          (n) => HOST_SYNONYMS[n] ?? n,
        ),
      ),
    ]);
    throw new UserError(`unknown host "${hostArg}"${close ? ` ${close}` : ''}`, {
      code: 'INVALID_ARGUMENT',
      hint: `HOST is one of ${HOST_HELP}`,
    });
  }
  if (flags.scope !== 'project' && flags.scope !== 'user') {
    throw new UserError(`--scope must be project or user, not "${flags.scope}"`, {
      code: 'INVALID_ARGUMENT',
      hint: 'pass --scope project (default) or --scope user',
    });
  }
  // A home other than the default is pinned into the server and hook commands: hosts started
  // from a desktop launcher do not inherit the FIRSTLIGHT_HOME of the shell that ran install.
  const resolvedHome = resolveHome({ flag: flags.home });
  // Uninstall works without a home: taking firstlight out must not depend on it still being there.
  if (verb === 'install') requireHome(resolvedHome.dir, resolvedHome.source);
  const command = {
    cliPath: fileURLToPath(new URL('../main.js', import.meta.url)),
    execPath: process.execPath,
    ...(resolvedHome.source !== 'default' ? { home: resolvedHome.dir } : {}),
    // Uninstall always knows the REPL entry, so it comes out whether or not --with-repl is given.
    ...(flags.withRepl || verb === 'uninstall' ? { withRepl: true } : {}),
  };
  const { chooseProject, refuseBroadRoot } = await import('../project.js');
  const root = chooseProject(flags.project, resolvedHome.dir);
  // Uninstall may still clean a root an older install wrote into.
  if (verb === 'install' && flags.scope === 'project') refuseBroadRoot(root.dir, homedir());
  const ctx = {
    project: root.dir,
    userHome: homedir(),
    env: process.env,
    platform: process.platform,
    ...host.resolveCommands({ ...command, env: process.env }),
  };
  return {
    host,
    root,
    options: {
      hosts,
      scope: flags.scope as 'project' | 'user',
      ctx,
      home: resolvedHome.dir,
      dryRun: flags.dryRun ?? false,
      command,
    },
  };
}

export function registerInstall(program: Command): void {
  withExamples(
    addInstallOptions(
      program
        .command('install')
        .description(
          'write the bootstrap rule, MCP config and hooks for a host (re-running changes nothing)',
        ),
      'install',
    ),
    [
      'firstlight install claude',
      'firstlight install all --dry-run',
      'firstlight install all --copilot-user',
      'firstlight install codex --scope user --with-repl',
    ],
    [
      'Project scope writes only files inside --project (refused when that is your home directory or /);',
      '--scope user writes only user-global files, which reach sessions outside the project too.',
      'Hook commands call `firstlight` by name when it is on PATH, so the files a team commits name no path',
      'of this machine; otherwise Claude Code and VS Code get them in .claude/settings.local.json (uncommitted).',
      'Every change is recorded in a manifest so `firstlight uninstall HOST` restores each file byte for byte.',
    ],
  ).action(async (hostArg: string, flags: InstallFlags) => {
    const { host, options, root } = await installSetup(hostArg, flags, 'install');
    const { describeRoot } = await import('../project.js');
    const report = await host.install(options);
    // Project scope writes only inside the project: Copilot CLI's user MCP config (it reads MCP
    // servers only from there) is written by `all` only when asked for, since it reaches every
    // Copilot CLI session of this user, in any folder.
    const copilotUser =
      hostArg === 'all' && options.scope === 'project' && flags.copilotUser
        ? await host.install({ ...options, hosts: ['copilot'], scope: 'user' })
        : undefined;
    if (copilotUser) report.manualSteps = report.manualSteps.filter((m) => m.host !== 'copilot');
    const { print } = await import('../io.js');
    print(
      flags.json,
      { ...report, project_found: root.found, ...(copilotUser ? { also: [copilotUser] } : {}) },
      () => {
        const [head, ...rest] = host.renderInstallReport(report).split('\n');
        const lines = [head, describeRoot(root), ...rest];
        if (copilotUser)
          lines.push(
            '',
            'Also at user scope (--copilot-user), reaching every Copilot CLI session of this user outside this project too: Copilot CLI reads MCP servers only from ~/.copilot/mcp-config.json:',
            '',
            host.renderInstallReport(copilotUser),
          );
        return lines.join('\n');
      },
    );
  });
}

export function registerUninstall(program: Command): void {
  withExamples(
    addInstallOptions(
      program
        .command('uninstall')
        .description(
          'reverse exactly what install added (restores files byte for byte, removes files it created)',
        ),
      'uninstall',
    ),
    ['firstlight uninstall claude', 'firstlight uninstall all --dry-run'],
    [
      'A file that still holds exactly what install wrote gets its old bytes back (or is removed if install',
      'created it); a file edited since loses only firstlight’s parts. `all` means the hosts install',
      'recorded for this project (or, with --scope user, for this user); name a host to take firstlight',
      'out of its files even when no install of it was recorded.',
    ],
  ).action(async (hostArg: string, flags: InstallFlags) => {
    const { host, options, root } = await installSetup(hostArg, flags, 'uninstall');
    const { describeRoot } = await import('../project.js');
    const { print } = await import('../io.js');
    const installed = await host.installStatus({ project: root.dir, home: options.home, env: process.env });
    const recorded = (scope: string) => installed.find((i) => i.scope === scope)?.hosts ?? [];
    if (hostArg === 'all') {
      // Only what install recorded: `all` never touches (or lists) a host that was not installed.
      options.hosts = recorded(options.scope);
      if (options.hosts.length === 0) {
        const note = `no install is recorded for ${options.scope === 'user' ? 'this user' : root.dir} (${options.scope} scope): nothing to undo`;
        print(flags.json, { hosts: [], scope: options.scope, project: root.dir, files: [], note }, () =>
          [
            `firstlight uninstall: ${note}`,
            describeRoot(root),
            "  To take firstlight out of one host's files anyway: firstlight uninstall HOST",
          ].join('\n'),
        );
        return;
      }
    }
    const report = await host.uninstall(options);
    print(flags.json, { ...report, project_found: root.found }, () => {
      const [head, ...rest] = host.renderUninstallReport(report).split('\n');
      const lines = [head, describeRoot(root), ...rest];
      if (hostArg === 'all' && options.scope === 'project' && recorded('user').includes('copilot'))
        lines.push(
          '',
          "Copilot CLI's user-scope install (which `install all` adds) stays: other projects use it. `firstlight uninstall copilot --scope user` takes it out.",
        );
      return lines.join('\n');
    });
  });
}
