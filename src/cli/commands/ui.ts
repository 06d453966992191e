import type { Command } from 'commander';
import { collect, HOME_HELP, numberOption, PROJECT_HELP } from '../help-text.js';
import type { HomeOption } from '../io.js';

interface UiFlags extends HomeOption {
  host: string;
  port: string | number;
  project?: string;
  allowedHost: string[];
  runtime?: string;
  open: boolean;
}

/** `firstlight ui`: a local page to see the mind and the runtime, live. */
export function registerUi(program: Command): void {
  program
    .command('ui')
    .description(
      'open a local page to see the mind and the runtime: wake-up packet, memory, observations, sessions, runtime, hosts',
    )
    .addOption(numberOption('--port <port>', 'port (0: any free port)', 7823))
    .option('--host <address>', 'bind address; anything but loopback requires FIRSTLIGHT_TOKEN', '127.0.0.1')
    .option('--project <dir>', PROJECT_HELP)
    .option(
      '--allowed-host <name>',
      'also accept this Host header name (a DNS name, or name:port behind a proxy); repeatable',
      collect,
      [],
    )
    .option(
      '--runtime <url>',
      'a runtime service (firstlight runtime serve) whose live subscriptions to show, with their backpressure counts (its token: FIRSTLIGHT_RUNTIME_TOKEN, else the one it keeps in <home>/run/, else FIRSTLIGHT_TOKEN)',
    )
    .option('--no-open', 'do not open a browser (the URL is printed either way)')
    .option('--home <dir>', HOME_HELP)
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  firstlight ui                         # http://127.0.0.1:7823/, opened in the browser on a desktop',
        '  firstlight ui --no-open --port 0      # any free port; the URL is printed',
        '  FIRSTLIGHT_TOKEN=$(openssl rand -hex 24) firstlight ui --host 0.0.0.0   # reachable from the network: sign in with the token',
        '  firstlight ui --runtime http://127.0.0.1:7822   # also the live subscriptions of `firstlight runtime serve`',
        '',
        'Views update by themselves when their files change. Edits, forgets and restores go through the',
        'same checks and locks as `firstlight memory`; nothing else is changed (only derived caches under',
        'cache/ are refreshed). The page accepts only its own Host and Origin, and a write only from the',
        'page itself. Ctrl-C to stop.',
      ].join('\n'),
    )
    .action(async (flags: UiFlags) => {
      const { homedir } = await import('node:os');
      const { createLogger, findServerToken, UserError } = await import('../../core/index.js');
      const { checkBind, isLoopback, packageVersion } = await import('../../servers/index.js');
      const { existingHome } = await import('../io.js');
      const { chooseProject } = await import('../project.js');
      const { ledgerDir } = await import('../../runtime/index.js');
      const port = Number(flags.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw new UserError(`--port must be an integer 0-65535, not "${flags.port}"`, {
          code: 'INVALID_ARGUMENT',
          hint: 'pass a port such as 7823 (or 0 for any free port)',
        });
      }
      if (flags.runtime !== undefined && !/^https?:\/\/[^\s/]+/.test(flags.runtime)) {
        throw new UserError(`--runtime must be an http(s) URL, not "${flags.runtime}"`, {
          code: 'INVALID_ARGUMENT',
          hint: 'pass the runtime service URL, e.g. --runtime http://127.0.0.1:7822',
        });
      }
      const token = process.env.FIRSTLIGHT_TOKEN || undefined;
      checkBind(flags.host, token);
      const home = existingHome(flags);
      const chosen = chooseProject(flags.project, home);
      // The runtime's journal is the project's when there is one (as `invoke` and `journal` choose).
      const ledger = ledgerDir({
        home,
        ...(chosen.found === 'start' && !flags.project ? {} : { project: chosen.dir }),
      });
      const { serveUi } = await import('../../ui/index.js');
      const log = createLogger('ui');
      const running = await serveUi({
        home,
        project: chosen.dir,
        ledger,
        host: flags.host,
        port,
        token,
        allowedHosts: flags.allowedHost,
        runtimeUrl: flags.runtime,
        // The service's token: given, else the one it keeps in this home's run/, else this page's.
        runtimeToken:
          process.env.FIRSTLIGHT_RUNTIME_TOKEN ||
          (flags.runtime ? findServerToken(home, flags.runtime) : undefined) ||
          token,
        log,
        version: packageVersion(),
        env: process.env,
        userHome: homedir(),
      });
      process.stdout.write(
        [
          `firstlight ui: ${running.url}`,
          `  home ${home}`,
          `  project ${chosen.dir}`,
          ...(token
            ? ['  Sign in with the FIRSTLIGHT_TOKEN value (the page asks for it once per browser).']
            : []),
          ...(isLoopback(flags.host) ? [] : [`  Host names accepted: ${running.allowedHosts.join(' ')}`]),
          'Ctrl-C to stop.',
          '',
        ].join('\n'),
      );
      if (flags.open) {
        const why = await openBrowser(running.url, process.env, process.platform);
        if (why) process.stderr.write(`firstlight ui: not opening a browser: ${why}; open the URL above\n`);
      }
      const stop = async () => {
        await running.close();
        process.exit(0);
      };
      process.on('SIGINT', () => void stop());
      process.on('SIGTERM', () => void stop());
    });
}

/**
 * Opens `url` in the desktop's browser (`open` on macOS, `start` on Windows, `xdg-open` where a
 * display is set); says why not otherwise. Detached: the browser outlives nothing of ours.
 */
async function openBrowser(
  url: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): Promise<string | undefined> {
  let command: string[];
  if (platform === 'darwin') command = ['open', url];
  else if (platform === 'win32') command = ['cmd', '/c', 'start', '""', url];
  else if (env.DISPLAY || env.WAYLAND_DISPLAY) command = ['xdg-open', url];
  else return 'no display (DISPLAY and WAYLAND_DISPLAY are unset)';
  const { spawn } = await import('node:child_process');
  const child = spawn(command[0]!, command.slice(1), { detached: true, stdio: 'ignore' });
  child.on('error', (error) =>
    process.stderr.write(`firstlight ui: could not start ${command[0]}: ${error.message}\n`),
  );
  child.unref();
  return undefined;
}
