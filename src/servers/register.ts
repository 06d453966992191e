import type { McpServer, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  asFirstlightError,
  type Logger,
  PREVIEW_META,
  type Tool,
  type ToolCallExtra,
} from '../core/index.js';

/**
 * Registers tool specs on a server. Each result carries the output as JSON text and as
 * `structuredContent`; a thrown FirstlightError becomes an `isError` result the model can read,
 * anything else is logged and reported as an internal error.
 */
export function registerTools(server: McpServer, specs: readonly Tool[], log: Logger): void {
  for (const spec of specs) {
    const callback: ToolCallback<Tool['input']> = async (args, extra) => {
      const progressToken = extra._meta?.progressToken;
      const callExtra: ToolCallExtra = { signal: extra.signal };
      const client = server.server.getClientVersion()?.name;
      if (client !== undefined) callExtra.client = client;
      // A check (firstlight doctor) asks for a dry run: the answer without its side effects.
      if (extra._meta?.[PREVIEW_META] === true) callExtra.preview = true;
      // Only when the client asked: a handler given `progress` may run a timer to feed it.
      if (progressToken !== undefined) {
        callExtra.progress = async (progress, total, message) => {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken, progress, total, message },
          });
        };
      }
      try {
        // The SDK parsed `args` with the tool's input schema already: not a second time.
        const output = await spec.callParsed(args, callExtra);
        return { content: [{ type: 'text', text: output.text }], structuredContent: output.structured };
      } catch (error) {
        const failure = asFirstlightError(error);
        if (failure.code === 'INTERNAL')
          log.error(`tool ${spec.name} failed: ${(error as Error).stack ?? error}`);
        return failure.toToolResult();
      }
    };
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
