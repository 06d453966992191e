/**
 * @module hub — client connections to backend MCP servers, each started in its own process
 * group (closing kills the whole group), with paginated tool lists and a result unwrapper
 * (`isError` throws, `structuredContent` first, then JSON-parsed text). Used by the REPL
 * harness for capabilities.
 */

export type { CallOptions, HubOptions } from './hub.js';
export { BackendConnection, Hub } from './hub.js';
export type { ServerSpec } from './process-group-transport.js';
export { ProcessGroupTransport } from './process-group-transport.js';
export { resultText, ToolResultError, unwrapToolResult } from './unwrap.js';
