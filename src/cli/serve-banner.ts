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
  /** The token was generated at start (not the operator's FIRSTLIGHT_TOKEN): printed, and kept in `file`. */
  generated?: { file: string };
  /** A server that runs code says so when it has no token. */
  codeRunning?: boolean;
  /** The Host names accepted, printed when bound beyond loopback. */
  allowedHosts?: readonly string[];
  tryIt: string;
}): string {
  // The operator's own FIRSTLIGHT_TOKEN is never printed (terminals get logged): `${FIRSTLIGHT_TOKEN}`
  // is expanded by Claude Code in .mcp.json, and `firstlight call` reads the variable itself. A token
  // generated at start is printed, as Jupyter prints its own, to paste into a client's config.
  // biome-ignore lint/suspicious/noTemplateCurlyInString: an environment reference, expanded by the client.
  const tokenRef = '${FIRSTLIGHT_TOKEN}';
  const sent = options.generated ? options.token : tokenRef;
  const config = {
    mcpServers: {
      [options.serverName]: {
        type: 'http',
        url: options.url,
        ...(options.token ? { headers: { Authorization: `Bearer ${sent}` } } : {}),
      },
    },
  };
  const tokenLines = !options.token
    ? ['  No token (--no-token): any process on this machine may call it.']
    : options.generated
      ? [
          `  Token: ${options.token}`,
          `  Clients send: Authorization: Bearer <the token> (kept in ${options.generated.file} for firstlight call and firstlight ui)`,
        ]
      : ['  Clients send: Authorization: Bearer <the FIRSTLIGHT_TOKEN value>'];
  return [
    `${options.what} serving ${options.home}`,
    `  MCP endpoint: ${options.url}`,
    ...(options.token || options.generated !== undefined || options.codeRunning ? tokenLines : []),
    ...(options.allowedHosts ? [`  Host names accepted: ${options.allowedHosts.join(' ')}`] : []),
    '',
    'Client config (paste into .mcp.json, .cursor/mcp.json, .gemini/settings.json; VS Code uses "servers"):',
    JSON.stringify(config, null, 2),
    ...(options.token && !options.generated
      ? [`(Claude Code expands ${tokenRef} from the environment; elsewhere put the token there.)`]
      : []),
    '',
    `Try it: ${options.tryIt} --http ${options.url}${options.token && !options.generated ? '   (sends $FIRSTLIGHT_TOKEN)' : ''}`,
    'Ctrl-C to stop.',
    '',
  ].join('\n');
}
