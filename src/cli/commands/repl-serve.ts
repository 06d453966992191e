/** `firstlight repl serve`: the harness as the MCP server "firstlight-repl", over stdio or HTTP. */
import { createLogger } from '../../core/index.js';
import { replTools } from '../../repl/index.js';
import {
  checkBind,
  codeServerToken,
  createReplServer,
  isLoopback,
  keepServerToken,
  serveHttp,
  serveStdio,
} from '../../servers/index.js';
import type { HttpFlags } from '../http-options.js';
import { httpSettings } from '../http-settings.js';
import { startHarness } from '../repl-harness.js';
import { cliEntry, selfCommand } from '../self-command.js';
import { httpBanner, stdioNotice } from '../serve-banner.js';
import type { ReplOptions } from './repl.js';

export async function replServe(options: ReplOptions & HttpFlags & { token?: boolean }): Promise<void> {
  const log = createLogger('repl');
  const flags = options.http ? httpSettings(options) : undefined;
  // It runs any Python for whoever reaches it: a token on loopback too, unless --no-token.
  const minted = flags
    ? codeServerToken({ host: flags.host, noToken: options.token === false, envToken: flags.token })
    : undefined;
  const http = flags && minted ? { ...flags, token: minted.token } : undefined;
  if (http) checkBind(http.host, http.token);
  const { repl, home, settings } = await startHarness(options, log);
  if (!http) {
    // A person who ran this in a terminal sees what it waits for; stdout stays the protocol's.
    if (process.stdin.isTTY) {
      const self = await selfCommand(cliEntry(import.meta.url));
      process.stderr.write(
        stdioNotice({
          what: `firstlight repl (${settings.kernel} kernel)`,
          home,
          httpCommand: `${self} repl serve --http`,
          tryIt: `${self} repl (a prompt on this harness), or ${self} call execute --arg code=1+1`,
        }),
      );
    }
    // Cells are the hottest calls a host makes: over stdio they skip the SDK's request path.
    await serveStdio(createReplServer({ repl, log }), {
      log,
      onShutdown: () => repl.shutdown(),
      directTools: replTools(repl),
    });
    return;
  }
  const running = await serveHttp({
    ...http,
    log,
    createServer: () => createReplServer({ repl, log }),
  });
  const kept = http.token
    ? keepServerToken(home, {
        kind: 'repl',
        url: running.url,
        bind: http.host,
        port: running.port,
        token: http.token,
      })
    : undefined;
  const self = await selfCommand(cliEntry(import.meta.url));
  process.stdout.write(
    httpBanner({
      what: `firstlight repl (${settings.kernel} kernel)`,
      home,
      url: running.url,
      serverName: 'firstlight-repl',
      token: http.token,
      ...(minted?.generated && kept ? { generated: { file: kept.file } } : {}),
      ...(isLoopback(http.host) ? {} : { allowedHosts: running.allowedHosts }),
      codeRunning: true,
      tryIt: `${self} call execute --arg code='1+1'${homeFlag(options.home, home)}`,
    }),
  );
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    kept?.remove();
    await running.close();
    await repl.shutdown();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

/** ` --home DIR` for a try-it line when the server's home was given (its clients look there). */
export function homeFlag(given: string | undefined, home: string): string {
  return given ? ` --home ${/^[\w./~-]+$/.test(home) ? home : JSON.stringify(home)}` : '';
}
