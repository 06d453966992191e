/**
 * Doctor's server probe: start the configured command exactly as a host would (stdio), connect
 * a real MCP SDK Client, call `bootstrap_session`, and judge the answer.
 */
import type { ProbeResult } from './doctor.js';

export interface ProbeOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  timeoutMs?: number;
}

export async function probeServer(
  server: { command: string; args: string[] },
  options: ProbeOptions,
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
  const client = new Client({ name: 'firstlight-doctor', version: '0.0.0' });
  const timeoutMs = options.timeoutMs ?? 20_000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    await Promise.race([client.connect(transport), timeout]);
    const result = (await Promise.race([
      client.callTool({ name: 'bootstrap_session', arguments: {} }),
      timeout,
    ])) as {
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

function textOf(result: { content?: { type: string; text?: string }[] }): string {
  return result.content?.find((c) => c.type === 'text')?.text ?? '';
}

/**
 * A lighter probe for `firstlight status --probe`: start the command, complete the MCP
 * handshake and list the tools. It calls no tool, so the home records nothing.
 */
export async function handshakeServer(
  server: { command: string; args: string[] },
  options: ProbeOptions,
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
  const client = new Client({ name: 'firstlight-status', version: '0.0.0' });
  const timeoutMs = options.timeoutMs ?? 10_000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    await Promise.race([client.connect(transport), timeout]);
    const { tools } = await Promise.race([client.listTools(), timeout]);
    return { ok: true, detail: `answers the MCP handshake (${tools.length} tools)` };
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
