import type { McpServer, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import {
  asFirstlightError,
  type Logger,
  PREVIEW_META,
  type Tool,
  type ToolCallExtra,
} from '../core/index.js';

/** What a tools/call's `_meta` may carry that a handler uses. */
export type CallMeta = { progressToken?: string | number; [key: string]: unknown } | undefined;

/** A handler's extras for one call: the client's name, a dry run, and progress when asked for. */
export function callExtraFor(
  server: McpServer,
  meta: CallMeta,
  notify: (notification: ServerNotification) => Promise<void>,
  signal?: AbortSignal,
): ToolCallExtra {
  const callExtra: ToolCallExtra = signal ? { signal } : {};
  const client = server.server.getClientVersion()?.name;
  if (client !== undefined) callExtra.client = client;
  // A check (firstlight doctor) asks for a dry run: the answer without its side effects.
  if (meta?.[PREVIEW_META] === true) callExtra.preview = true;
  // Only when the client asked: a handler given `progress` may run a timer to feed it.
  const progressToken = meta?.progressToken;
  if (progressToken !== undefined) {
    callExtra.progress = (progress, total, message) =>
      notify({ method: 'notifications/progress', params: { progressToken, progress, total, message } });
  }
  return callExtra;
}

/**
 * Runs a tool on arguments parsed with its input schema: the output as JSON text and as
 * `structuredContent`; a thrown FirstlightError becomes an `isError` result the model can read,
 * anything else is logged and reported as an internal error.
 */
export async function runTool(
  spec: Tool,
  args: unknown,
  extra: ToolCallExtra,
  log: Logger,
): Promise<CallToolResult> {
  try {
    const output = await spec.callParsed(args, extra);
    return { content: [{ type: 'text', text: output.text }], structuredContent: output.structured };
  } catch (error) {
    const failure = asFirstlightError(error);
    if (failure.code === 'INTERNAL')
      log.error(`tool ${spec.name} failed: ${(error as Error).stack ?? error}`);
    return failure.toToolResult();
  }
}

/** Registers tool specs on a server (results as `runTool` makes them). */
export function registerTools(server: McpServer, specs: readonly Tool[], log: Logger): void {
  for (const spec of specs) {
    // The SDK parsed `args` with the tool's input schema already: not a second time.
    const callback: ToolCallback<Tool['input']> = async (args, extra) =>
      runTool(spec, args, callExtraFor(server, extra._meta, extra.sendNotification, extra.signal), log);
    server.registerTool(
      spec.name,
      {
        title: spec.title,
        description: spec.description,
        inputSchema: spec.input,
        outputSchema: spec.output,
        annotations: { title: spec.title, ...spec.annotations },
      },
      callback,
    );
  }
}
