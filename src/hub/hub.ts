import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { type Logger, SystemError, silentLogger, UserError } from '../core/index.js';
import { ProcessGroupTransport, type ServerSpec } from './process-group-transport.js';

export interface CallOptions {
  signal?: AbortSignal;
  /** Per-call timeout; progress from the backend resets it. Default 5 minutes. */
  timeoutMs?: number;
  onProgress?: (progress: number, total?: number, message?: string) => void;
}

/** A live connection to one backend MCP server. */
export class BackendConnection {
  constructor(
    readonly name: string,
    readonly spec: ServerSpec,
    readonly client: Client,
    readonly tools: Tool[],
    private readonly transport: ProcessGroupTransport,
  ) {}

  get pid(): number | undefined {
    return this.transport.pid;
  }

  /** Calls a tool; protocol failures reject, tool failures come back with `isError`. */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    const onProgress = options.onProgress;
    const result = await this.client.callTool({ name: tool, arguments: args }, undefined, {
      signal: options.signal,
      timeout: options.timeoutMs ?? 300_000,
      // Only with onprogress does the SDK send a progressToken (and reset the timeout on
      // progress), so it is passed only when someone listens: a token makes the backend and
      // the SDK track progress for every call, which a loop of small relay calls pays for.
      ...(onProgress
        ? {
            resetTimeoutOnProgress: true,
            onprogress: (p: { progress: number; total?: number; message?: string }) =>
              onProgress(p.progress, p.total, p.message),
          }
        : {}),
    });
    return result as CallToolResult;
  }

  /** Closes the session and kills the server's process group. */
  async close(): Promise<void> {
    try {
      await this.client.close();
    } finally {
      await this.transport.close();
    }
  }
}

export interface HubOptions {
  log?: Logger;
  clientName?: string;
  clientVersion?: string;
  /** How long a server may take to start and answer `initialize` + `tools/list`. */
  connectTimeoutMs?: number;
}

/**
 * Client connections to backend MCP servers by name, for the REPL harness's capabilities.
 */
export class Hub {
  private readonly connections = new Map<string, BackendConnection>();
  private readonly log: Logger;

  constructor(private readonly options: HubOptions = {}) {
    this.log = options.log ?? silentLogger;
  }

  get(name: string): BackendConnection | undefined {
    return this.connections.get(name);
  }

  names(): string[] {
    return [...this.connections.keys()];
  }

  /** Starts a server, initializes a session and lists its tools (all pages). Replaces `name`. */
  async connect(name: string, spec: ServerSpec): Promise<BackendConnection> {
    const transport = new ProcessGroupTransport(spec, (text) =>
      this.log.debug(`[${name}] ${text.trimEnd()}`),
    );
    const client = new Client({
      name: this.options.clientName ?? 'firstlight-hub',
      version: this.options.clientVersion ?? '0.1.0',
    });
    const timeout = this.options.connectTimeoutMs ?? 30_000;
    try {
      await client.connect(transport, { timeout });
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {}, { timeout });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      const connection = new BackendConnection(name, spec, client, tools, transport);
      const previous = this.connections.get(name);
      this.connections.set(name, connection);
      if (previous) await previous.close();
      return connection;
    } catch (error) {
      await transport.close().catch(() => {});
      const stderr = transport.recentStderr.trim();
      const clue = stderr ? `; its stderr ended with: ${stderr.slice(-500)}` : '';
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new UserError(`cannot start "${spec.command}": command not found`, {
          code: 'BACKEND_NOT_FOUND',
          hint: 'give `command` as an executable on PATH or an absolute path, and its arguments in `args`',
          cause: error,
        });
      }
      throw new SystemError(
        `backend "${name}" (${spec.command}) did not start: ${(error as Error).message}${clue}`,
        {
          code: 'BACKEND_START_FAILED',
          hint: 'check `command`, `args`, `env` and `cwd`; run the command by hand to see why it stops',
          cause: error,
        },
      );
    }
  }

  /** Closes one connection (and its process group); false when there was none. */
  async disconnect(name: string): Promise<boolean> {
    const connection = this.connections.get(name);
    if (!connection) return false;
    this.connections.delete(name);
    await connection.close().catch((error) => this.log.warn(`closing ${name}: ${(error as Error).message}`));
    return true;
  }

  /** Closes every connection. */
  async closeAll(): Promise<void> {
    await Promise.all(this.names().map((name) => this.disconnect(name)));
  }
}
