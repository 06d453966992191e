/**
 * @module servers — the composition root (createFirstlight), MCP server factories (one per server: mind, repl) and the
 * transports they attach to: stdio (exits when stdin closes) and streamable HTTP (loopback by
 * default, token beyond it, Host/Origin checked). The runtime service (its HTTP API and MCP
 * door) is the folder `runtime-service/`, with its own public index: it loads the runtime, which
 * the mind's server never needs.
 */

export { BoundedStdioServerTransport, MAX_REQUEST_BYTES } from './bounded-stdio.js';
export type { Firstlight, FirstlightOptions } from './compose.js';
export { createFirstlight } from './compose.js';
export { attachDirectCalls } from './direct-calls.js';
export type { HttpOptions, RunningHttpServer } from './http.js';
export { serveHttp } from './http.js';
export {
  bearerToken,
  checkBind,
  checkRequest,
  header,
  hostsFor,
  isLoopback,
  isWildcard,
  MIN_TOKEN_LENGTH,
  reachableAddress,
  sameSecret,
  urlHost,
} from './http-guard.js';
export { listen } from './listen.js';
export type { McpSessions, McpSessionsOptions } from './mcp-sessions.js';
export { mcpSessions } from './mcp-sessions.js';
export type { MindServerDeps } from './mind-server.js';
export { createMindServer, MIND_INSTRUCTIONS } from './mind-server.js';
export { registerTools } from './register.js';
export { RESOURCE_NOT_FOUND, registerPrompts, registerResources } from './register-content.js';
export type { ReplServerDeps } from './repl-server.js';
export { createReplServer, REPL_INSTRUCTIONS } from './repl-server.js';
export { codeServerToken, keepServerToken } from './server-token.js';
export type { StdioOptions } from './stdio.js';
export { serveStdio } from './stdio.js';
export { packageVersion } from './version.js';
