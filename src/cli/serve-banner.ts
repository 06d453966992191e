/**
 * What `serve` and `repl serve` say to a person: over stdio in a terminal, what the server waits
 * for (on stderr: stdout is the protocol); over HTTP, the endpoint, a client config to paste and
 * a `firstlight call` line to try it.
 */

/** The stdio notice for a terminal: nothing happens until a client speaks JSON-RPC on stdin. */
export function stdioNotice(options: {
  what: string;
  home: string;
  httpCommand: string;
  tryIt: string;
}): string {
  return [
    `${options.what} serving ${options.home} over stdio: it waits for an MCP client (a host starts it) to speak JSON-RPC on stdin.`,
    `  Try it without a host: ${options.tryIt}`,
    `  Or serve HTTP: ${options.httpCommand} (prints a URL and a client config). Ctrl-C to stop.`,
    '',
  ].join('\n');
}

/** The HTTP banner: endpoint, accepted names, client config, a try-it line. */
export function httpBanner(options: {
  what: string;
  home: string;
  url: string;
  serverName: string;
  token: string | undefined;
  /** The Host names accepted, printed when bound beyond loopback. */
  allowedHosts?: readonly string[];
  tryIt: string;
}): string {
  // The token itself is never printed (terminals get logged); `${FIRSTLIGHT_TOKEN}` is expanded
  // by Claude Code in .mcp.json, and `firstlight call` reads the variable itself.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: an environment reference, expanded by the client.
  const tokenRef = '${FIRSTLIGHT_TOKEN}';
  const config = {
    mcpServers: {
      [options.serverName]: {
        type: 'http',
        url: options.url,
        ...(options.token ? { headers: { Authorization: `Bearer ${tokenRef}` } } : {}),
      },
    },
  };
  return [
    `${options.what} serving ${options.home}`,
    `  MCP endpoint: ${options.url}`,
    ...(options.token ? ['  Clients send: Authorization: Bearer <the FIRSTLIGHT_TOKEN value>'] : []),
    ...(options.allowedHosts ? [`  Host names accepted: ${options.allowedHosts.join(' ')}`] : []),
    '',
    'Client config (paste into .mcp.json, .cursor/mcp.json, .gemini/settings.json; VS Code uses "servers"):',
    JSON.stringify(config, null, 2),
    ...(options.token
      ? [`(Claude Code expands ${tokenRef} from the environment; elsewhere put the token there.)`]
      : []),
    '',
    `Try it: ${options.tryIt} --http ${options.url}${options.token ? '   (sends $FIRSTLIGHT_TOKEN)' : ''}`,
    'Ctrl-C to stop.',
    '',
  ].join('\n');
}
