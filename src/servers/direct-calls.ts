import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JSONRPCMessage, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { Logger, Tool } from '../core/index.js';
import type { BoundedStdioServerTransport } from './bounded-stdio.js';
import { type CallMeta, callExtraFor, runTool } from './register.js';

/** The `_meta` keys a direct call may carry (anything else goes the SDK's way). */
const META_KEYS = new Set(['progressToken', 'firstlight/preview']);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A JSON-RPC id as the SDK accepts one: a string or an integer. */
const isRequestId = (value: unknown): value is string | number =>
  typeof value === 'string' || Number.isSafeInteger(value);

/** `_meta` that a direct call can honour: none, or only a progress token and the preview flag. */
function plainMeta(meta: unknown): meta is CallMeta {
  if (meta === undefined) return true;
  if (!isRecord(meta)) return false;
  for (const key of Object.keys(meta)) if (!META_KEYS.has(key)) return false;
  return meta.progressToken === undefined || isRequestId(meta.progressToken);
}

/**
 * Answers the plain `tools/call`s of `tools` straight from a stdio transport's parsed line, and
 * says which it took. A REPL cell is the hottest request a host sends, and the SDK's request path
 * costs a `tools/call` about as much as a Python round trip: the message parsed against the
 * JSON-RPC schemas four times, the call's schema twice, the arguments, the output and the result
 * once each, and a chain of promise turns. A direct call parses the arguments once with the same
 * schema the SDK would use and runs the same handler (`runTool`) with the same extras, progress
 * included; the result is the one the SDK would send. Anything out of the ordinary is left to
 * the SDK, which answers it as always: another method, an unknown tool, arguments the schema
 * refuses (the SDK words the error), a task-augmented call, any other `_meta` or params key.
 */
export function directToolCalls(
  server: McpServer,
  tools: readonly Tool[],
  log: Logger,
  send: (message: JSONRPCMessage) => Promise<void>,
): (message: unknown) => boolean {
  const byName = new Map(tools.map((tool) => [tool.name, { tool, schema: z.object(tool.input) }]));
  const notify = (notification: ServerNotification) => send({ jsonrpc: '2.0', ...notification });
  return (message) => {
    if (!isRecord(message) || message.method !== 'tools/call' || message.jsonrpc !== '2.0') return false;
    const { id, params } = message;
    if (!isRequestId(id) || !isRecord(params) || typeof params.name !== 'string') return false;
    for (const key of Object.keys(params))
      if (key !== 'name' && key !== 'arguments' && key !== '_meta') return false;
    const entry = byName.get(params.name);
    if (!entry || !plainMeta(params._meta)) return false;
    if (params.arguments !== undefined && !isRecord(params.arguments)) return false;
    const parsed = entry.schema.safeParse(params.arguments ?? {});
    if (!parsed.success) return false;
    const extra = callExtraFor(server, params._meta, notify);
    void runTool(entry.tool, parsed.data, extra, log)
      .then((result) => send({ jsonrpc: '2.0', id, result }))
      .catch((error) =>
        log.warn(`could not answer tools/call ${entry.tool.name}: ${(error as Error).message}`),
      );
    return true;
  };
}

/** Lets `transport` answer the plain calls of `tools` itself (see directToolCalls). */
export function attachDirectCalls(
  transport: BoundedStdioServerTransport,
  server: McpServer,
  tools: readonly Tool[],
  log: Logger,
): void {
  transport.direct = directToolCalls(server, tools, log, (message) => transport.send(message));
}
