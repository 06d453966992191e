import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger, Tool } from '../core/index.js';
import { BoundedStdioServerTransport } from './bounded-stdio.js';
import { attachDirectCalls } from './direct-calls.js';

export interface StdioOptions {
  log: Logger;
  /** Runs once before exit (auto-save, closing backends); the process exits after it settles. */
  onShutdown?: () => Promise<void> | void;
  /** Tools (registered on `server` too) whose plain calls skip the SDK's request path: direct-calls.ts. */
  directTools?: readonly Tool[];
}

/**
 * Serves one MCP server on stdin/stdout (requests bounded: see BoundedStdioServerTransport) and exits when stdin closes (the host went away) or on
 * SIGINT/SIGTERM, after `onShutdown`.
 */
export async function serveStdio(server: McpServer, options: StdioOptions): Promise<void> {
  const transport = new BoundedStdioServerTransport(process.stdin, process.stdout, undefined, (message) =>
    options.log.warn(`refused a request: ${message}`),
  );
  if (options.directTools) attachDirectCalls(transport, server, options.directTools, options.log);
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    options.log.debug(`stdio server stopping: ${why}`);
    try {
      await options.onShutdown?.();
    } catch (error) {
      options.log.error(`shutdown step failed: ${(error as Error).message}`);
    }
    await server.close().catch(() => {});
    process.exit(0);
  };
  process.stdin.on('end', () => void stop('stdin closed'));
  process.stdin.on('close', () => void stop('stdin closed'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  await server.connect(transport);
}
