import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { ReadResourceRequestSchema, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { asFirstlightError, type Logger, type Prompt, type ResourceTemplateSpec } from '../core/index.js';

/** JSON-RPC code the MCP spec gives "resource not found" (the SDK 1.x has no constant for it). */
export const RESOURCE_NOT_FOUND = -32002;

/** `main.md`, `notes/x`: no `scheme:` in front. */
const HAS_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * Registers resource template specs. Unknown resources are a protocol fault, not a tool-style
 * error: a NotFoundError from `read` becomes JSON-RPC error -32002 with the URI in `data`.
 * `resources/read` is answered here, not by the SDK's handler, which parses every URI with
 * `new URL` and so refuses a bare `main.md` ("Invalid URL") where the guidance seed names its
 * resources so (issue 38); a spec with `bareNames` reads those.
 */
export function registerResources(
  server: McpServer,
  specs: readonly ResourceTemplateSpec[],
  log: Logger,
): void {
  const readers: ((uri: string) => Promise<ReadResourceResult> | undefined)[] = [];
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
    const read = async (uri: string, variables: Record<string, string | string[]>) => {
      const flat = Object.fromEntries(
        Object.entries(variables).map(([k, v]) => [k, Array.isArray(v) ? v.join('/') : String(v)]),
      );
      try {
        return { contents: [spec.read(uri, flat)] };
      } catch (error) {
        const failure = asFirstlightError(error);
        if (failure.code === 'NOT_FOUND') throw resourceNotFound(failure.render(), uri);
        log.error(`resource ${uri} failed: ${(error as Error).stack ?? error}`);
        throw error;
      }
    };
    server.registerResource(
      spec.name,
      template,
      { title: spec.title, description: spec.description, mimeType: spec.mimeType },
      async (uri, variables) => read(uri.toString(), variables),
    );
    const uriTemplate = new UriTemplate(spec.uriTemplate);
    const variable = uriTemplate.variableNames[0];
    readers.push((uri) => {
      if (!HAS_SCHEME.test(uri))
        return spec.bareNames && variable ? read(uri, { [variable]: uri }) : undefined;
      const variables = uriTemplate.match(uri);
      return variables ? read(uri, variables) : undefined;
    });
  }
  if (readers.length === 0) return;
  server.server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    for (const reader of readers) {
      const answer = reader(uri);
      if (answer) return answer;
    }
    throw resourceNotFound(`resource ${uri} not found`, uri);
  });
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
