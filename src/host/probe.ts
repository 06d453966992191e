/**
 * Doctor's server probe: start the configured command exactly as a host would (stdio), connect
 * a real MCP SDK Client, call `bootstrap_session`, and judge the answer. `status --probe` uses
 * the lighter handshake: connect and list the tools.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PREVIEW_META } from '../core/index.js';
import type { ProbeResult } from './doctor.js';

export interface ProbeOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  timeoutMs?: number;
}

type ServerCommand = { command: string; args: string[] };

/**
 * Starts `server`, connects a client named `clientName`, and runs `ask` on it, every step within
 * one deadline; a failure or the deadline is a failed result naming the command.
 */
async function withServer(
  server: ServerCommand,
  options: ProbeOptions & { clientName: string; defaultTimeoutMs: number },
  ask: (client: Client, within: <T>(step: Promise<T>) => Promise<T>) => Promise<ProbeResult>,
): Promise<ProbeResult> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: Object.fromEntries(
      Object.entries(options.env).filter((e): e is [string, string] => e[1] !== undefined),
    ),
    cwd: options.cwd,
    stderr: 'pipe',
  });
  const client = new Client({ name: options.clientName, version: '0.0.0' });
  const timeoutMs = options.timeoutMs ?? options.defaultTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  const within = <T>(step: Promise<T>) => Promise.race([step, timeout]);
  try {
    await within(client.connect(transport));
    return await ask(client, within);
  } catch (error) {
    return {
      ok: false,
      detail: `\`${[server.command, ...server.args].join(' ')}\` failed: ${(error as Error).message}`,
    };
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}

export function probeServer(server: ServerCommand, options: ProbeOptions): Promise<ProbeResult> {
  return withServer(
    server,
    { ...options, clientName: 'firstlight-doctor', defaultTimeoutMs: 20_000 },
    async (client, within) => {
      const result = (await within(
        // A dry run: the server answers as it would a host, but records no session.
        client.callTool({ name: 'bootstrap_session', arguments: {}, _meta: { [PREVIEW_META]: true } }),
      )) as {
        isError?: boolean;
        structuredContent?: Record<string, unknown>;
        content?: { type: string; text?: string }[];
      };
      if (result.isError)
        return { ok: false, detail: `bootstrap_session returned an error: ${textOf(result)}` };
      const packet =
        result.structuredContent ?? (JSON.parse(textOf(result) || 'null') as Record<string, unknown> | null);
      if (packet?.mind_contract_available !== true) {
        return {
          ok: false,
          detail: 'bootstrap_session answered, but mind_contract_available is false (degraded)',
        };
      }
      return {
        ok: true,
        detail: `\`${[server.command, ...server.args].join(' ')}\` answers bootstrap_session`,
      };
    },
  );
}

function textOf(result: { content?: { type: string; text?: string }[] }): string {
  return result.content?.find((c) => c.type === 'text')?.text ?? '';
}

/**
 * A lighter probe for `firstlight status --probe`: start the command, complete the MCP
 * handshake and list the tools. It calls no tool, so the home records nothing.
 */
export function handshakeServer(server: ServerCommand, options: ProbeOptions): Promise<ProbeResult> {
  return withServer(
    server,
    { ...options, clientName: 'firstlight-status', defaultTimeoutMs: 10_000 },
    async (client, within) => {
      const { tools } = await within(client.listTools());
      return { ok: true, detail: `answers the MCP handshake (${tools.length} tools)` };
    },
  );
}
