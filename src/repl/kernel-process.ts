import { type ChildProcess, spawn } from 'node:child_process';
import type { Duplex, Readable } from 'node:stream';
import { type Logger, packagePath, SystemError, UserError } from '../core/index.js';
import { readLines } from './json-lines.js';

/**
 * A relay request from Python: a `tools/call` on the backend installed as `capability`. The
 * kernel writes it as one line, `<id> <capability> <params>`, where params is the call's
 * `{"name": …, "arguments": …}` as JSON: the harness passes it on without parsing it.
 */
export interface RelayRequest {
  id: number;
  capability: string;
  params: string;
}

/**
 * The answer to a relay request: the backend's JSON-RPC response line as it came (the kernel
 * unwraps it: fl_capabilities.py), or an error message that Python raises. On the wire:
 * `<id> <response>`, or `<id> !<message as a JSON string>`.
 */
export type RelayAnswer = { response: string } | { error: string };

/** Which kernel runs the cells: the embedded stdlib one, or a Jupyter (IPython) kernel via a bridge. */
export type KernelKind = 'stdlib' | 'jupyter';

export interface KernelOptions {
  python: string;
  /** Default `stdlib`. `jupyter` needs jupyter_client and ipykernel importable by `python`. */
  kind?: KernelKind;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The number of the last cell run before this kernel: the kernel counts on from it. */
  executionCount?: number;
  log: Logger;
  onRelay: (request: RelayRequest) => Promise<RelayAnswer>;
  /** What the kernel's fd 1/2 pass on between cells (during a cell it is in the result). */
  onOutput: (stream: 'stdout' | 'stderr', text: string) => void;
  /** Called once when the process exits, whoever caused it. */
  onExit: (how: string) => void;
}

/** Thrown to pending requests when the kernel process is gone. */
export class KernelExitedError extends SystemError {
  readonly how: string;
  constructor(how: string) {
    super(`the Python kernel exited (${how})`, {
      code: 'KERNEL_EXITED',
      hint: 'the harness restarts it on the next call; see stderr of the repl server',
    });
    this.how = how;
  }
}

/** How much of a starting kernel's stderr a start failure quotes. */
const STARTUP_STDERR_KEEP = 2000;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * Where the Python kernel lives: shipped as source in the package (`files` lists it). The
 * Jupyter bridge speaks the same protocol and drives an IPython kernel.
 */
export function kernelScript(kind: KernelKind = 'stdlib'): string {
  return packagePath('src', 'repl', 'kernel', kind === 'jupyter' ? 'fl_jupyter.py' : 'fl_kernel.py');
}

/**
 * One Python kernel process. Control requests go on fd 3 and relay calls come on fd 4 (each a
 * duplex socket pair, one JSON object per line, every message with an id); stdout and stderr
 * stay plain output so nothing the user's code prints can corrupt the protocol.
 */
export class KernelProcess {
  readonly child: ChildProcess;
  private readonly control: Duplex;
  private readonly relay: Duplex;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private exited: string | undefined;
  /** What the kernel wrote to stderr before it was ready: the clue when a start fails. */
  private startupStderr: string | null = '';
  readonly ready: Promise<{ pid: number; python: string }>;

  private constructor(private readonly options: KernelOptions) {
    this.child = spawn(
      options.python,
      ['-X', 'utf8', kernelScript(options.kind), String(options.executionCount ?? 0)],
      {
        cwd: options.cwd,
        env: { ...options.env, PYTHONUNBUFFERED: '1', PYTHONIOENCODING: 'utf-8' },
        stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'],
        // Its own process group: an interrupt reaches a cell's subprocesses as Ctrl-C would, and
        // a kill takes them along instead of orphaning them.
        detached: true,
      },
    );
    const sweep = () => this.signalGroup('SIGKILL');
    process.once('exit', sweep);
    this.control = this.child.stdio[3] as Duplex;
    this.relay = this.child.stdio[4] as Duplex;
    this.ready = new Promise((resolve, reject) => {
      this.pending.set(0, { resolve: resolve as (value: unknown) => void, reject });
    });
    this.ready.catch(() => {});
    this.child.on('error', (error) => {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      const failure = missing
        ? new UserError(`cannot start the Python kernel: "${options.python}" was not found`, {
            code: 'PYTHON_NOT_FOUND',
            hint: 'install Python 3.10+ or set repl.python in firstlight.yaml to the interpreter path',
            cause: error,
          })
        : new SystemError(`cannot start the Python kernel: ${error.message}`, {
            code: 'KERNEL_SPAWN',
            cause: error,
          });
      this.finish(failure.message, failure);
    });
    this.child.on('exit', (code, signal) => {
      // Whatever the cell started in the background goes with the kernel.
      this.signalGroup('SIGKILL');
      process.off('exit', sweep);
      this.finish(signal ? `killed by ${signal}` : `exit code ${code}`);
    });
    readLines(this.control, (line) => this.onControl(line));
    readLines(this.relay, (line) => void this.onRelayLine(line));
    for (const stream of ['stdout', 'stderr'] as const) {
      (this.child[stream] as Readable).setEncoding('utf8');
      (this.child[stream] as Readable).on('data', (text: string) => {
        if (stream === 'stderr' && this.startupStderr !== null) {
          this.startupStderr = (this.startupStderr + text).slice(-STARTUP_STDERR_KEEP);
        }
        options.onOutput(stream, text);
      });
    }
    // A closed socket would otherwise raise an unhandled 'error' when the kernel dies mid-write.
    this.control.on('error', () => {});
    this.relay.on('error', () => {});
  }

  /** Starts a kernel and waits until it says it is ready. */
  static async start(options: KernelOptions): Promise<KernelProcess> {
    const kernel = new KernelProcess(options);
    // A Jupyter kernel starts a second interpreter and imports IPython: give it longer.
    const limitS = options.kind === 'jupyter' ? 60 : 15;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void kernel.kill();
    }, limitS * 1000);
    try {
      await kernel.ready;
    } catch (error) {
      throw kernel.startFailure(error as Error, timedOut ? limitS : undefined);
    } finally {
      clearTimeout(timer);
    }
    kernel.startupStderr = null;
    return kernel;
  }

  /**
   * Why the kernel never became ready, with what it wrote to stderr meanwhile: "killed by
   * SIGKILL" alone would hide that the harness stopped a start that hung.
   */
  private startFailure(error: Error, timedOutAfterS: number | undefined): Error {
    if (!(error instanceof KernelExitedError)) return error; // e.g. the interpreter was not found
    const kind = this.options.kind ?? 'stdlib';
    const what =
      timedOutAfterS === undefined
        ? `the Python kernel (${kind}) exited while starting (${error.how})`
        : `the Python kernel (${kind}) did not start within ${timedOutAfterS} s and was stopped`;
    const stderr = this.startupStderr?.trim();
    return new SystemError(stderr ? `${what}; its last stderr lines:\n${stderr}` : what, {
      code: timedOutAfterS === undefined ? 'KERNEL_START_FAILED' : 'KERNEL_START_TIMEOUT',
      hint:
        kind === 'jupyter'
          ? 'check that `python3 -m ipykernel_launcher --help` runs for repl.python, or use --kernel stdlib; a start on a heavily loaded machine may simply need another try'
          : 'check that repl.python runs Python 3.10+; a start on a heavily loaded machine may simply need another try',
      cause: error,
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.exited === undefined;
  }

  /** Sends one control request and resolves with the kernel's result. */
  request<T>(op: string, payload: Record<string, unknown> = {}): Promise<T> {
    if (this.exited !== undefined) return Promise.reject(new KernelExitedError(this.exited));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.control.write(`${JSON.stringify({ id, op, ...payload })}\n`);
    });
  }

  /**
   * KeyboardInterrupt in the running cell (ignored by the kernel between cells); the cell's
   * subprocesses get the SIGINT too, as from Ctrl-C in a terminal (and as Jupyter sends it).
   */
  interrupt(): void {
    if (this.alive) this.signalGroup('SIGINT');
  }

  /** Kills the kernel and its subprocesses at once and waits for it to be gone. */
  async kill(): Promise<void> {
    if (!this.alive) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.signalGroup('SIGKILL');
    await gone;
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, signal);
    } catch {
      // The group is gone already.
    }
  }

  /** Closes the control channel (the kernel exits on EOF) and kills it if it lingers. */
  async close(graceMs = 1000): Promise<void> {
    if (!this.alive) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.control.end();
    const timer = setTimeout(() => this.signalGroup('SIGKILL'), graceMs);
    await gone;
    clearTimeout(timer);
  }

  private onControl(line: string): void {
    let message: { id: number; ok: boolean; result?: unknown; error?: string };
    try {
      message = JSON.parse(line);
    } catch {
      this.options.log.warn(`kernel sent a line that is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    const waiter = this.pending.get(message.id);
    if (!waiter) return;
    this.pending.delete(message.id);
    if (message.ok) waiter.resolve(message.result);
    else waiter.reject(new SystemError(`kernel: ${message.error}`, { code: 'KERNEL_OP_FAILED' }));
  }

  private async onRelayLine(line: string): Promise<void> {
    const afterId = line.indexOf(' ');
    const afterCapability = line.indexOf(' ', afterId + 1);
    const id = Number(line.slice(0, afterId));
    if (afterId < 1 || afterCapability < 0 || !Number.isSafeInteger(id)) {
      this.options.log.warn(
        `kernel sent a relay line that is not <id> <capability> <params>: ${line.slice(0, 200)}`,
      );
      return;
    }
    const request = {
      id,
      capability: line.slice(afterId + 1, afterCapability),
      params: line.slice(afterCapability + 1),
    };
    let answer: RelayAnswer;
    try {
      answer = await this.options.onRelay(request);
    } catch (error) {
      answer = { error: (error as Error).message };
    }
    if (!this.alive) return;
    this.relay.write(
      'response' in answer ? `${id} ${answer.response}\n` : `${id} !${JSON.stringify(answer.error)}\n`,
    );
  }

  private finish(how: string, error?: Error): void {
    if (this.exited !== undefined) return;
    this.exited = how;
    const failure = error ?? new KernelExitedError(how);
    for (const waiter of this.pending.values()) waiter.reject(failure);
    this.pending.clear();
    this.options.onExit(how);
  }
}
