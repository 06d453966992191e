import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { asFirstlightError, type Logger, type Prompt, type ResourceTemplateSpec } from '../core/index.js';

/** JSON-RPC code the MCP spec gives "resource not found" (the SDK 1.x has no constant for it). */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * Registers resource template specs. Unknown resources are a protocol fault, not a tool-style
 * error: a NotFoundError from `read` becomes JSON-RPC error -32002 with the URI in `data`.
 */
export function registerResources(
  server: McpServer,
  specs: readonly ResourceTemplateSpec[],
  log: Logger,
): void {
  for (const spec of specs) {
    const complete = spec.complete
      ? Object.fromEntries(
          Object.entries(spec.complete).map(([variable, candidates]) => [
            variable,
            (value: string) => candidates(value),
          ]),
        )
      : undefined;
    const template = new ResourceTemplate(spec.uriTemplate, {
      list: async () => ({ resources: spec.list() }),
      ...(complete ? { complete } : {}),
    });
    server.registerResource(
      spec.name,
      template,
      { title: spec.title, description: spec.description, mimeType: spec.mimeType },
      async (uri, variables) => {
        const flat = Object.fromEntries(
          Object.entries(variables).map(([k, v]) => [k, Array.isArray(v) ? v.join('/') : String(v)]),
        );
        try {
          return { contents: [spec.read(uri.toString(), flat)] };
        } catch (error) {
          const failure = asFirstlightError(error);
          if (failure.code === 'NOT_FOUND') throw resourceNotFound(failure.render(), uri.toString());
          log.error(`resource ${uri} failed: ${(error as Error).stack ?? error}`);
          throw error;
        }
      },
    );
  }
}

/**
 * The server sends a thrown error's `message` as is, and the client's McpError prefixes
 * "MCP error <code>: " again: throwing an McpError here reached clients as
 * "MCP error -32002: MCP error -32002: …". A plain Error carrying `code` and `data` is sent once.
 */
function resourceNotFound(message: string, uri: string): Error {
  return Object.assign(new Error(message), { code: RESOURCE_NOT_FOUND, data: { uri } });
}

/** Registers prompt specs, each under its name and its aliases; each returns one user message. */
export function registerPrompts(server: McpServer, specs: readonly Prompt[], log: Logger): void {
  for (const spec of specs) {
    for (const name of [spec.name, ...spec.aliases]) {
      server.registerPrompt(
        name,
        {
          title: spec.title,
          description: name === spec.name ? spec.description : `Alias of ${spec.name}. ${spec.description}`,
          argsSchema: spec.args,
        },
        async (args) => {
          try {
            const client = server.server.getClientVersion()?.name;
            const out = spec.get(args, client === undefined ? {} : { client });
            return {
              ...(out.description ? { description: out.description } : {}),
              messages: [{ role: 'user' as const, content: { type: 'text' as const, text: out.text } }],
            };
          } catch (error) {
            log.error(`prompt ${name} failed: ${(error as Error).stack ?? error}`);
            throw error;
          }
        },
      );
    }
  }
}
