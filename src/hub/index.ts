/**
 * @module hub — client connections to backend MCP servers, each started in its own process
 * group (closing kills the whole group), with paginated tool lists and a result unwrapper
 * (`isError` throws, `structuredContent` first, then JSON-parsed text). Used by the REPL
 * harness for capabilities. A backend that crashes or hangs is reported by name and restarted
 * on its next use, with a pause that grows per restart (at most 8 s).
 */

export type { BackendStatus, CallOptions, CrashInfo, HubOptions } from './hub.js';
export {
  BackendConnection,
  BackendCrashedError,
  BackendTimeoutError,
  Hub,
  restartBackoffMs,
  toolNameOf,
} from './hub.js';
export type { ServerSpec } from './process-group-transport.js';
export { ProcessGroupTransport, TransportClosedError } from './process-group-transport.js';
export { resultText, ToolResultError, unwrapToolResult } from './unwrap.js';
