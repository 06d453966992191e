import { type ChildProcess, spawn } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

/** How to start a backend MCP server over stdio. */
export interface ServerSpec {
  command: string;
  args: string[];
  /** Added to a minimal inherited environment (HOME, PATH, SHELL, TERM, USER, LOGNAME). */
  env: Record<string, string>;
  cwd?: string | undefined;
}

/** Why a raw request got no answer: the server's process ended (or the transport was closed). */
export class TransportClosedError extends Error {
  constructor() {
    super('the server closed the connection');
    this.name = 'TransportClosedError';
  }
}

/** The ids of raw requests: strings, where the SDK client's are numbers. */
const RAW_ID_PREFIX = 'fl-raw-';

/** Every live group we started, so a synchronous exit hook can still kill them all. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * The SDK's StdioClientTransport, except that the server starts in its own process group and
 * closing kills the whole group: `npx`, shell wrappers and servers that fork leave no orphans
 * (the SDK signals only the direct child: typescript-sdk#2023). It also carries raw requests
 * (`requestRaw`) beside the SDK client's: their responses come back as the line the server
 * wrote, parsed once to find the id and never validated or copied (the REPL's relay calls,
 * whose answer goes to Python as it is).
 */
export class ProcessGroupTransport implements Transport {
  private child: ChildProcess | undefined;
  /** The pieces of a line not ended yet: joined once its newline comes (one copy per line). */
  private pending: Buffer[] = [];
  /** Raw requests waiting for their response, by id (strings: the SDK's ids are numbers). */
  private readonly rawWaiters = new Map<string, (answer: string | Error) => void>();
  private nextRawId = 1;
  private stderrTail = '';
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /**
   * Called once when the server's process ends by itself (not through `close`), before
   * `onclose`: the exit code or signal, for the crash report.
   */
  onCrash?: (exit: { code: number | null; signal: NodeJS.Signals | null }) => void;
  private closing = false;
  private exit: { code: number | null; signal: NodeJS.Signals | null } = { code: null, signal: null };

  constructor(
    private readonly spec: ServerSpec,
    private readonly onStderr: (text: string) => void = () => {},
  ) {}

  /** The last 2 KB the server wrote to stderr: the usual clue when it fails to start. */
  get recentStderr(): string {
    return this.stderrTail;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.child) throw new Error('ProcessGroupTransport already started');
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.on('exit', () => {
        for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
      });
    }
    return new Promise((resolve, reject) => {
      const child = spawn(this.spec.command, this.spec.args, {
        env: { ...getDefaultEnvironment(), ...this.spec.env },
        cwd: this.spec.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
        shell: false,
      });
      this.child = child;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => {
        if (child.pid) liveGroups.add(child.pid);
        resolve();
      });
      child.on('exit', (code, signal) => {
        this.exit = { code, signal };
      });
      child.on('close', () => {
        if (child.pid) liveGroups.delete(child.pid);
        this.child = undefined;
        if (!this.closing) this.onCrash?.(this.exit);
        this.failRawWaiters();
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.onData(chunk));
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (text: string) => {
        this.stderrTail = (this.stderrTail + text).slice(-2048);
        this.onStderr(text);
      });
    });
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(10);
    while (newline !== -1) {
      const piece = chunk.subarray(start, newline);
      const bytes = this.pending.length > 0 ? Buffer.concat([...this.pending, piece]) : piece;
      this.pending = [];
      // As the SDK's ReadBuffer reads a line: UTF-8, a trailing CR dropped.
      const end = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? bytes.length - 1 : bytes.length;
      if (end > 0) this.onLine(bytes.toString('utf8', 0, end));
      start = newline + 1;
      newline = chunk.indexOf(10, start);
    }
    if (start < chunk.length) this.pending.push(chunk.subarray(start));
  }

  private onLine(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    const { id, method } = parsed as { id?: unknown; method?: unknown };
    if (typeof id === 'string' && method === undefined && id.startsWith(RAW_ID_PREFIX)) {
      const waiter = this.rawWaiters.get(id);
      this.rawWaiters.delete(id);
      // No waiter: its caller stopped waiting (and cancelled it); the late answer is dropped.
      waiter?.(line);
      return;
    }
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(parsed);
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    this.onmessage?.(message);
  }

  /**
   * Sends a request made as text: `method` with `params`, already JSON. `onAnswer` gets the
   * server's response line as it came, or a TransportClosedError when the server goes first.
   * Returns the request's id (to forget it by).
   */
  requestRaw(method: string, params: string, onAnswer: (answer: string | Error) => void): string {
    const id = `${RAW_ID_PREFIX}${this.nextRawId++}`;
    const stdin = this.child?.stdin;
    if (!stdin) {
      queueMicrotask(() => onAnswer(new TransportClosedError()));
      return id;
    }
    this.rawWaiters.set(id, onAnswer);
    stdin.write(`{"jsonrpc":"2.0","id":"${id}","method":${JSON.stringify(method)},"params":${params}}\n`);
    return id;
  }

  /** Forgets a raw request (its caller stopped waiting): a late response goes to the SDK client. */
  forgetRaw(id: string): boolean {
    return this.rawWaiters.delete(id);
  }

  /** Writes one message line as it is (a notification the SDK client did not make). */
  sendRaw(line: string): void {
    this.child?.stdin?.write(line);
  }

  private failRawWaiters(): void {
    const waiters = [...this.rawWaiters.values()];
    this.rawWaiters.clear();
    for (const waiter of waiters) waiter(new TransportClosedError());
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin) {
        reject(new Error('not connected'));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends stdin, then SIGTERM to the group after `graceMs`, then SIGKILL. */
  async close(graceMs = 500): Promise<void> {
    this.closing = true;
    const child = this.child;
    if (!child?.pid) return;
    const pid = child.pid;
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const wait = (ms: number) =>
      Promise.race([
        closed.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref()),
      ]);
    child.stdin?.end();
    if (!(await wait(graceMs))) {
      killGroup(pid, 'SIGTERM');
      if (!(await wait(1000))) killGroup(pid, 'SIGKILL');
    }
    // The leader may be gone while forked children linger in the group: sweep it anyway.
    killGroup(pid, 'SIGKILL');
    liveGroups.delete(pid);
    this.pending = [];
    this.failRawWaiters();
  }
}
