import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult, ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { type Logger, SystemError, silentLogger, UserError } from '../core/index.js';
import { ProcessGroupTransport, type ServerSpec } from './process-group-transport.js';

export interface CallOptions {
  signal?: AbortSignal;
  /** Per-call timeout; progress from the backend resets it. Default 5 minutes. */
  timeoutMs?: number;
  onProgress?: (progress: number, total?: number, message?: string) => void;
}

/** How a backend's server process ended when nobody asked it to (or why it was put down). */
export interface CrashInfo {
  /** `exit code 1`, `killed by SIGKILL`, or `hung: no answer to read_file within 3 s`. */
  how: string;
  /** The last lines it wrote to stderr. */
  stderr: string;
  at: number;
}

/** A backend's health, as `describe_capability` shows it. */
export interface BackendStatus {
  state: 'running' | 'crashed';
  restarts: number;
  pid: number | undefined;
  last_crash?: { how: string; stderr: string; at: string };
}

/** A backend call failed because its server process is gone (or was put down as hung). */
export class BackendCrashedError extends SystemError {
  constructor(name: string, crash: CrashInfo) {
    const clue = crash.stderr.trim() ? `; its stderr ended with: ${lastLines(crash.stderr, 5)}` : '';
    super(`backend "${name}" crashed (${crash.how})${clue}`, {
      code: 'BACKEND_CRASHED',
      hint: 'it is restarted on the next call (with a growing pause between restarts); describe_capability shows its state',
    });
  }
}

/** A backend call got no answer in time; the server is put down and restarted on the next call. */
export class BackendTimeoutError extends SystemError {
  constructor(name: string, tool: string, ms: number) {
    super(`backend "${name}" did not answer ${tool} within ${ms / 1000} s`, {
      code: 'BACKEND_TIMEOUT',
      hint: 'the server was stopped and is restarted on the next call; pass a larger execute timeout if the call is just slow',
    });
  }
}

/** The tool a raw `tools/call`'s params name (for messages only: parsed when one is needed). */
export function toolNameOf(params: string): string {
  try {
    return String((JSON.parse(params) as { name?: unknown }).name);
  } catch {
    return 'a tool';
  }
}

function lastLines(text: string, n: number): string {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}

/** Pause before restart number `n` (1-based): 0.25 s, doubling, at most 8 s. */
export function restartBackoffMs(n: number): number {
  return Math.min(8_000, 250 * 2 ** Math.max(0, n - 1));
}

/** A live connection to one backend MCP server. */
export class BackendConnection {
  /** Set when the server process ended by itself, or was put down as hung. */
  crashed: CrashInfo | undefined;
  /** Restarts before this connection (a restarted backend gets a new connection). */
  restarts = 0;

  constructor(
    readonly name: string,
    readonly spec: ServerSpec,
    readonly client: Client,
    readonly tools: Tool[],
    private readonly transport: ProcessGroupTransport,
  ) {
    transport.onCrash = ({ code, signal }) => {
      this.crashed ??= {
        how: signal ? `killed by ${signal}` : `exit code ${code}`,
        stderr: transport.recentStderr,
        at: Date.now(),
      };
    };
  }

  get pid(): number | undefined {
    return this.transport.pid;
  }

  /** Calls a tool; protocol failures reject, tool failures come back with `isError`. */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    if (this.crashed) throw new BackendCrashedError(this.name, this.crashed);
    const onProgress = options.onProgress;
    const timeout = options.timeoutMs ?? 300_000;
    let result: unknown;
    try {
      result = await this.callOnce(tool, args, options, timeout, onProgress);
    } catch (error) {
      if (this.crashed) throw new BackendCrashedError(this.name, this.crashed);
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        // A server that does not answer in time may never answer: put it down, restart on next use.
        this.crashed = {
          how: `hung: no answer to ${tool} within ${timeout / 1000} s`,
          stderr: this.transport.recentStderr,
          at: Date.now(),
        };
        void this.close().catch(() => {});
        throw new BackendTimeoutError(this.name, tool, timeout);
      }
      throw error;
    }
    return result as CallToolResult;
  }

  /**
   * A `tools/call` whose params (`{"name": …, "arguments": …}`) are JSON already, answered with
   * the server's response line as it came: nothing parsed past its id, nothing validated, for
   * a caller that hands the answer on (the REPL's relay: Python reads the line itself). Errors
   * as `callTool`'s: BackendCrashedError, BackendTimeoutError (the server is put down), or the
   * signal's reason when it aborts (the server is told with notifications/cancelled).
   */
  callToolRaw(params: string, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<string> {
    if (this.crashed) return Promise.reject(new BackendCrashedError(this.name, this.crashed));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const timeoutMs = options.timeoutMs ?? 300_000;
    return new Promise((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const id = this.transport.requestRaw('tools/call', params, (answer) => {
        settle();
        if (typeof answer === 'string') resolve(answer);
        else if (this.crashed) reject(new BackendCrashedError(this.name, this.crashed));
        else reject(answer);
      });
      const timer = setTimeout(() => {
        settle();
        this.transport.forgetRaw(id);
        const tool = toolNameOf(params);
        // A server that does not answer in time may never answer: put it down, restart on next use.
        this.crashed ??= {
          how: `hung: no answer to ${tool} within ${timeoutMs / 1000} s`,
          stderr: this.transport.recentStderr,
          at: Date.now(),
        };
        void this.close().catch(() => {});
        reject(new BackendTimeoutError(this.name, tool, timeoutMs));
      }, timeoutMs);
      const onAbort = () => {
        settle();
        if (this.transport.forgetRaw(id)) {
          const reason = (signal?.reason as Error | undefined)?.message ?? String(signal?.reason);
          this.transport.sendRaw(
            `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } })}\n`,
          );
        }
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private callOnce(
    tool: string,
    args: Record<string, unknown>,
    options: CallOptions,
    timeout: number,
    onProgress: CallOptions['onProgress'],
  ): Promise<unknown> {
    return this.client.callTool({ name: tool, arguments: args }, undefined, {
      signal: options.signal,
      timeout,
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
  }

  status(): BackendStatus {
    const crash = this.crashed;
    return {
      state: crash ? 'crashed' : 'running',
      restarts: this.restarts,
      pid: crash ? undefined : this.pid,
      ...(crash
        ? {
            last_crash: {
              how: crash.how,
              stderr: lastLines(crash.stderr, 5),
              at: new Date(crash.at).toISOString(),
            },
          }
        : {}),
    };
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
  private readonly restarting = new Map<string, Promise<BackendConnection>>();
  private readonly log: Logger;

  constructor(private readonly options: HubOptions = {}) {
    this.log = options.log ?? silentLogger;
  }

  get(name: string): BackendConnection | undefined {
    return this.connections.get(name);
  }

  /**
   * The connection for a call: a crashed backend is restarted first (after a pause that grows
   * with each restart, at most 8 s). A restart that fails throws, and the next call tries again.
   */
  async live(name: string): Promise<BackendConnection | undefined> {
    const connection = this.connections.get(name);
    if (!connection?.crashed) return connection;
    let pending = this.restarting.get(name);
    if (!pending) {
      pending = this.restart(name, connection).finally(() => this.restarting.delete(name));
      this.restarting.set(name, pending);
    }
    return pending;
  }

  private async restart(name: string, old: BackendConnection): Promise<BackendConnection> {
    const crash = old.crashed!;
    const n = old.restarts + 1;
    const wait = crash.at + restartBackoffMs(n) - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    this.log.warn(`backend "${name}" ${crash.how}; restarting it (restart ${n})`);
    await old.close().catch(() => {});
    try {
      const fresh = await this.connect(name, old.spec);
      fresh.restarts = n;
      return fresh;
    } catch (error) {
      // Counted, and the pause before the next try starts now.
      old.restarts = n;
      crash.at = Date.now();
      throw error;
    }
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
