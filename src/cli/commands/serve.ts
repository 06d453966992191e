import type { Command } from 'commander';
import { HOME_HELP, withExamples } from '../help-text.js';
import { addHttpOptions, type HttpFlags } from '../http-options.js';
import type { HomeOption } from '../io.js';

interface ServeOptions extends HomeOption, HttpFlags {}

export function registerServe(program: Command): void {
  const serve = program
    .command('serve')
    .description('serve the mind (MCP server "firstlight") over stdio, or streamable HTTP with --http')
    .option('--home <dir>', HOME_HELP);
  withExamples(
    addHttpOptions(serve, 7821),
    [
      'firstlight serve',
      'firstlight serve --http --port 7821',
      'FIRSTLIGHT_TOKEN=… firstlight serve --http --host 0.0.0.0',
    ],
    [
      'Stdio is for hosts that spawn the server; it exits when stdin closes.',
      'HTTP binds 127.0.0.1 by default; set FIRSTLIGHT_TOKEN (16+ characters) to require a bearer token (mandatory off loopback).',
      "The Host header must name this server: loopback names, this machine's addresses and hostname, or an --allowed-host.",
    ],
  ).action(async (options: ServeOptions) => {
    const { createLogger } = await import('../../core/index.js');
    const { createFirstlight, createMindServer, serveHttp, serveStdio, checkBind, isLoopback } = await import(
      '../../servers/index.js'
    );
    const { httpSettings } = await import('../http-settings.js');
    const { cliEntry, selfCommand } = await import('../self-command.js');
    const { existingHome } = await import('../io.js');
    const { httpBanner, stdioNotice } = await import('../serve-banner.js');
    const log = createLogger('serve');
    const http = httpSettings(options);
    if (options.http) checkBind(http.host, http.token);
    const home = existingHome(options);
    const firstlight = createFirstlight({ home, log, watchMemory: true, projectDir: process.cwd() });
    const shutdown = async () => {
      await firstlight.settle();
      firstlight.close();
    };
    if (!options.http) {
      // A person who ran this in a terminal sees why nothing happens; hosts never give a TTY.
      if (process.stdin.isTTY) {
        const self = await selfCommand(cliEntry(import.meta.url));
        process.stderr.write(
          stdioNotice({
            what: 'firstlight mind',
            home,
            httpCommand: `${self} serve --http`,
            tryIt: `${self} call bootstrap_session`,
          }),
        );
      }
      await serveStdio(createMindServer({ firstlight, log }), { log, onShutdown: shutdown });
      return;
    }
    const running = await serveHttp({
      ...http,
      log,
      createServer: (sessionKey) => createMindServer({ firstlight, log, sessionKey }),
    });
    const self = await selfCommand(cliEntry(import.meta.url));
    process.stdout.write(
      httpBanner({
        what: 'firstlight mind',
        home,
        url: running.url,
        serverName: 'firstlight',
        token: http.token,
        ...(isLoopback(options.host) ? {} : { allowedHosts: running.allowedHosts }),
        tryIt: `${self} call bootstrap_session`,
      }),
    );
    const stop = async () => {
      await running.close();
      await shutdown();
      process.exit(0);
    };
    process.on('SIGINT', () => void stop());
    process.on('SIGTERM', () => void stop());
  });
}
