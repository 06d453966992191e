import { type ChildProcess, spawn } from 'node:child_process';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** How to start a backend MCP server over stdio. */
export interface ServerSpec {
  command: string;
  args: string[];
  /** Added to a minimal inherited environment (HOME, PATH, SHELL, TERM, USER, LOGNAME). */
  env: Record<string, string>;
  cwd?: string | undefined;
}

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
 * (the SDK signals only the direct child: typescript-sdk#2023).
 */
export class ProcessGroupTransport implements Transport {
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();
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
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        this.buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (error) {
            this.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (text: string) => {
        this.stderrTail = (this.stderrTail + text).slice(-2048);
        this.onStderr(text);
      });
    });
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
    this.buffer.clear();
  }
}
