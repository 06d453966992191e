import type { Command } from 'commander';
import { addHttpOptions, type HttpFlags, httpSettings } from '../http-options.js';
import { existingHome, type HomeOption } from '../io.js';

interface ServeOptions extends HomeOption, HttpFlags {}

export function registerServe(program: Command): void {
  const serve = program
    .command('serve')
    .description('serve the mind (MCP server "firstlight") over stdio, or streamable HTTP with --http')
    .option('--home <dir>', 'home directory (default: $FIRSTLIGHT_HOME or ~/.firstlight)');
  addHttpOptions(serve, '7821')
    .addHelpText(
      'after',
      "\nStdio is for hosts that spawn the server; it exits when stdin closes.\nHTTP binds 127.0.0.1 by default; set FIRSTLIGHT_TOKEN (16+ characters) to require a bearer token (mandatory off loopback).\nThe Host header must name this server: loopback names, this machine's addresses and hostname, or an --allowed-host.",
    )
    .action(async (options: ServeOptions) => {
      const { createLogger } = await import('../../core/index.js');
      const { createFirstlight, createMindServer, serveHttp, serveStdio, checkBind, isLoopback } =
        await import('../../servers/index.js');
      const log = createLogger('serve');
      const http = httpSettings(options);
      const token = http.token;
      if (options.http) checkBind(http.host, token);
      const home = existingHome(options);
      const firstlight = createFirstlight({ home, log, watchMemory: true, projectDir: process.cwd() });
      const shutdown = async () => {
        await firstlight.settle();
        firstlight.close();
      };
      if (!options.http) {
        // A person who ran this in a terminal sees why nothing happens; hosts never give a TTY.
        if (process.stdin.isTTY)
          process.stderr.write(
            `firstlight mind serving ${home} over stdio: an MCP host starts this and speaks JSON-RPC on stdin.\n` +
              'To try it by hand: firstlight serve --http (prints a URL and a client config). Ctrl-C to stop.\n',
          );
        await serveStdio(createMindServer({ firstlight, log }), { log, onShutdown: shutdown });
        return;
      }
      const running = await serveHttp({
        ...http,
        log,
        createServer: (sessionKey) => createMindServer({ firstlight, log, sessionKey }),
      });
      // The token itself is never printed (terminals get logged); `${FIRSTLIGHT_TOKEN}` is expanded
      // by the shell in the inspector line and by Claude Code in .mcp.json.
      // biome-ignore lint/suspicious/noTemplateCurlyInString: an environment reference, expanded by the client.
      const tokenRef = '${FIRSTLIGHT_TOKEN}';
      const auth = token ? `Bearer ${tokenRef}` : undefined;
      const config = {
        mcpServers: {
          firstlight: {
            type: 'http',
            url: running.url,
            ...(auth ? { headers: { Authorization: auth } } : {}),
          },
        },
      };
      process.stdout.write(
        [
          `firstlight mind serving ${home}`,
          `  MCP endpoint: ${running.url}`,
          ...(token ? ['  Clients send: Authorization: Bearer <the FIRSTLIGHT_TOKEN value>'] : []),
          ...(isLoopback(options.host) ? [] : [`  Host names accepted: ${running.allowedHosts.join(' ')}`]),
          '',
          'Client config (paste into .mcp.json, .cursor/mcp.json, .gemini/settings.json; VS Code uses "servers"):',
          JSON.stringify(config, null, 2),
          ...(token
            ? [`(Claude Code expands ${tokenRef} from the environment; elsewhere put the token there.)`]
            : []),
          '',
          'Try it: npx -y -p @modelcontextprotocol/inspector@1.0.3 mcp-inspector --cli ' +
            `${running.url} --transport http${auth ? ` --header "Authorization: ${auth}"` : ''} --method tools/call --tool-name bootstrap_session`,
          'Ctrl-C to stop.',
          '',
        ].join('\n'),
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
