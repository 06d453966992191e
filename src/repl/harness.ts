import { isFirstlightError, type Logger, SystemError } from '../core/index.js';
import { type BackendConnection, Hub, toolNameOf } from '../hub/index.js';
import { KernelExitedError, KernelProcess, type RelayAnswer, type RelayRequest } from './kernel-process.js';
import type { ExecutionResult, KernelTool, Progress, ReplDeps, ReplState } from './types.js';

interface RawExecution extends ExecutionResult {
  /** The user's names, when they changed since the last execute. */
  names?: string[];
}

const NOTICE = '[firstlight-repl]';
/** Node's setTimeout limit (2^31-1 ms), in whole seconds. */
const MAX_TIMER_S = Math.floor(0x7fffffff / 1000);

/** The cell being run: what it is doing (for progress), and the signal that ends its relay calls. */
class RunningCell {
  /** The relay call in progress, if any: its capability and params (the tool is read from them when asked). */
  calling: RelayRequest | undefined;
  // Made on first use: most cells make no relay call and are never aborted.
  private controller: AbortController | undefined;

  /** `calling fs.read_text_file` during a relay call, else `running`. */
  get activity(): string {
    const call = this.calling;
    return call ? `calling ${call.capability}.${toolNameOf(call.params)}` : 'running';
  }

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  abort(reason?: unknown): void {
    this.controller ??= new AbortController();
    this.controller.abort(reason);
  }
}

/** An error's text for Python, with its code when it is one of ours (`BACKEND_CRASHED: …`). */
function named(error: unknown): string {
  return isFirstlightError(error) ? `${error.code}: ${error.message}` : (error as Error).message;
}

/** A request's kernel was killed (or died) and a new one started; the message says what was lost. */
export class KernelRestartedError extends SystemError {
  constructor(report: string) {
    super(report, { code: 'KERNEL_RESTARTED' });
  }
}

/**
 * The kernel's lifecycle and `execute`: one kernel process at a time, requests in order, a
 * timeout that interrupts then kills, restarts that say what was lost. Capabilities and
 * persistence build on it in `Repl` (repl.ts).
 */
export class KernelHost {
  protected kernel: KernelProcess | undefined;
  protected readonly hub: Hub;
  protected readonly log: Logger;
  /** Tool lists of installed relay capabilities, re-injected after a kernel restart. */
  protected readonly relayTools = new Map<string, KernelTool[]>();
  private queue: Promise<unknown> = Promise.resolve();
  /** Requests queued or running: with none, a new one starts at once instead of a turn later. */
  private inFlight = 0;
  private notices: string[] = [];
  private lastNames: string[] = [];
  /**
   * The number of the last cell, kept across kernel restarts: a restarted kernel counts on from
   * it (a killed cell keeps its number), so numbers and `<cell-N>` names never repeat.
   */
  private lastCount = 0;
  private expectedExit = false;
  /** Set at shutdown: no new kernel may start after it. */
  protected stopped = false;
  private running: RunningCell | undefined;

  constructor(protected readonly deps: ReplDeps) {
    this.log = deps.log;
    this.hub = new Hub({ log: deps.log, clientName: 'firstlight-repl' });
  }

  /** Runs `work` after every earlier request: the kernel does one thing at a time. */
  protected serial<T>(work: () => Promise<T>): Promise<T> {
    const idle = this.inFlight === 0;
    this.inFlight += 1;
    let next: Promise<T>;
    if (idle) {
      try {
        next = work();
      } catch (error) {
        next = Promise.reject(error);
      }
    } else {
      next = this.queue.then(work, work);
    }
    this.queue = next.then(
      () => {
        this.inFlight -= 1;
      },
      () => {
        this.inFlight -= 1;
      },
    );
    return next;
  }

  /** A message for the model with the next execute result (restarts, what a restore missed). */
  protected notice(text: string): void {
    this.notices.push(`${NOTICE} ${text}`);
    this.log.warn(text);
  }

  /** The live kernel, starting (or restarting) one when needed. */
  protected async ensureKernel(): Promise<KernelProcess> {
    if (this.kernel?.alive) return this.kernel;
    if (this.stopped) {
      throw new SystemError('the REPL harness is shutting down', {
        code: 'REPL_STOPPED',
        hint: 'start a new `firstlight repl serve`',
      });
    }
    this.expectedExit = false;
    const kernel = await KernelProcess.start({
      python: this.deps.python ?? this.deps.settings.python,
      kind: this.deps.settings.kernel,
      cwd: this.deps.cwd,
      env: this.deps.env,
      executionCount: this.lastCount,
      log: this.log,
      onRelay: (request) => this.relay(request),
      onOutput: (stream, text) => this.onKernelOutput(stream, text),
      onExit: (how) => {
        if (!this.expectedExit) this.log.warn(`python kernel ${how}`);
      },
    });
    this.kernel = kernel;
    for (const [name, tools] of this.relayTools) await kernel.request('install', { name, tools });
    return kernel;
  }

  /** Says what a dead kernel took with it; called before the restart. */
  protected lossReport(how: string): string {
    const lost = this.lastNames.length > 0 ? `lost: ${this.lastNames.join(', ')}` : 'the namespace was empty';
    const kept = [...this.relayTools.keys()];
    const keptText = kept.length > 0 ? `; capabilities re-installed: ${kept.join(', ')}` : '';
    this.lastNames = [];
    return `the Python kernel ${how} and was restarted with an empty namespace (${lost}${keptText}). Native capabilities must be registered again; restore_state brings back a saved state.`;
  }

  /** What reaches the kernel's fd 1/2 between cells (a cell's own goes into its result). */
  private onKernelOutput(stream: 'stdout' | 'stderr', text: string): void {
    this.log.debug(`kernel ${stream}: ${text.trimEnd()}`);
  }

  /**
   * A relay call: the params go to the backend as Python wrote them and its response line goes
   * back as it came (the kernel unwraps it), so the harness parses neither. Only a crashed
   * backend (restarted here, on its next use) or an unknown one takes the slow way.
   */
  private async relay(request: RelayRequest): Promise<RelayAnswer> {
    let connection = this.hub.get(request.capability);
    if (connection?.crashed) {
      try {
        connection = await this.hub.live(request.capability);
      } catch (error) {
        return { error: named(error) };
      }
    }
    if (!connection) return { error: `capability '${request.capability}' is not installed` };
    const running = this.running;
    if (running) running.calling = request;
    const signal = running?.signal;
    try {
      const response = await connection.callToolRaw(request.params, {
        ...(signal ? { signal } : {}),
        timeoutMs: this.deps.settings.timeout_s * 1000,
      });
      return { response };
    } catch (error) {
      if (signal?.aborted) {
        // The cell's timeout ended the call: the backend had not answered by then.
        return {
          error: `BACKEND_TIMEOUT: backend "${request.capability}" did not answer ${toolNameOf(request.params)} before the cell's timeout`,
        };
      }
      return { error: named(error) };
    } finally {
      if (running?.calling === request) running.calling = undefined;
    }
  }

  /** Runs a cell. Timeouts interrupt (SIGINT), then kill and restart; output is capped. */
  execute(
    code: string,
    options: { timeoutS?: number; progress?: Progress; repr?: boolean } = {},
  ): Promise<ExecutionResult> {
    return this.serial(() => this.executeNow(code, options));
  }

  private async executeNow(
    code: string,
    options: { timeoutS?: number; progress?: Progress; repr?: boolean },
  ): Promise<ExecutionResult> {
    // A live kernel is used as it is (no await: the usual case costs no extra turn).
    const kernel = this.kernel?.alive ? this.kernel : await this.liveKernel();
    const settings = this.deps.settings;
    // Node fires a timer past 2^31-1 ms at once: a caller that got past the schema is capped.
    const timeoutS = Math.min(options.timeoutS ?? settings.timeout_s, MAX_TIMER_S);
    const running = new RunningCell();
    this.running = running;
    // The request goes out first: the timers below are armed while the kernel runs the cell.
    const reply = kernel.request<RawExecution>('execute', {
      code,
      output_cap: settings.output_max_chars,
      ...(options.repr ? { repr: true } : {}),
    });
    const timing: { phase: 'running' | 'interrupted' | 'killed'; during?: string } = { phase: 'running' };
    let graceTimer: NodeJS.Timeout | undefined;
    const started = Date.now();
    const timer = setTimeout(() => {
      timing.phase = 'interrupted';
      // A relay call that had not answered is named in the result: the usual cause is the backend.
      if (running.activity.startsWith('calling ')) {
        timing.during = ` while ${running.activity}, which had not answered (BACKEND_TIMEOUT)`;
      }
      running.abort(new Error(`execute timed out after ${timeoutS} s`));
      kernel.interrupt();
      graceTimer = setTimeout(() => {
        timing.phase = 'killed';
        this.expectedExit = true;
        void kernel.kill();
      }, settings.interrupt_grace_s * 1000);
    }, timeoutS * 1000);
    const heartbeat = options.progress
      ? setInterval(() => {
          const elapsed = Math.round((Date.now() - started) / 1000);
          void options.progress?.(elapsed, timeoutS, `${running.activity} (${elapsed} s of ${timeoutS} s)`);
        }, 1000)
      : undefined;
    const notices = this.notices.length > 0 ? this.notices.splice(0) : undefined;
    let result: ExecutionResult;
    try {
      const raw = await reply;
      if (raw.names) {
        this.lastNames = raw.names;
        delete raw.names;
      }
      this.lastCount = raw.execution_count;
      result = raw;
      const cut =
        raw.error_type === 'KeyboardInterrupt' || (raw.error_message ?? '').includes('BACKEND_TIMEOUT');
      if (timing.phase !== 'running' && cut) {
        result.error_type = 'TimeoutError';
        result.error_message = `execution exceeded the ${timeoutS} s timeout and was interrupted (KeyboardInterrupt)${timing.during ?? ''}; the namespace is intact`;
      } else if (timing.phase !== 'running') {
        // e.g. os.system ignores SIGINT while it waits, but the child it waits for does not: the
        // cell ends by itself, past its timeout, and that is a failure too (issue 38).
        result.success = false;
        result.error_type = 'TimeoutError';
        result.error_message = `execution exceeded the ${timeoutS} s timeout; the interrupt stopped a subprocess and the cell then ended by itself (what ran after it did run); the namespace is intact`;
      }
    } catch (error) {
      if (!(error instanceof KernelExitedError)) throw error;
      const how =
        timing.phase === 'killed'
          ? `did not stop within ${settings.interrupt_grace_s} s of SIGINT, was killed`
          : error.how;
      const report = this.lossReport(how.startsWith('did not') ? how : `died (${how})`);
      this.lastCount += 1;
      this.kernel = undefined;
      await this.ensureKernel();
      result = {
        success: false,
        stdout: '',
        stderr: '',
        return_value: null,
        error_type: timing.phase === 'killed' ? 'TimeoutError' : 'KernelDied',
        error_message:
          timing.phase === 'killed'
            ? `execution exceeded the ${timeoutS} s timeout; ${report}`
            : `${report} The cell did not finish.`,
        execution_count: this.lastCount,
      };
    } finally {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      clearInterval(heartbeat);
      this.running = undefined;
    }
    if (notices) result.stderr = `${notices.join('\n')}\n${result.stderr}`;
    return result;
  }

  /**
   * A kernel request that runs user code outside a cell (a restore); call it from inside
   * `serial`. Past `seconds` the kernel is killed and restarted, and the request fails with a
   * KernelRestartedError saying so.
   */
  protected async requestBounded<T>(
    op: string,
    payload: Record<string, unknown>,
    seconds: number,
  ): Promise<T> {
    const kernel = await this.liveKernel();
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      this.expectedExit = true;
      void kernel.kill();
    }, seconds * 1000);
    try {
      return await kernel.request<T>(op, payload);
    } catch (error) {
      if (!(error instanceof KernelExitedError)) throw error;
      const report = this.lossReport(
        late ? `did not finish "${op}" within ${seconds} s, was killed` : `died (${error.how})`,
      );
      this.kernel = undefined;
      await this.ensureKernel();
      throw new KernelRestartedError(report);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The kernel for a non-execute request, reporting a death noticed on the way. */
  protected async liveKernel(): Promise<KernelProcess> {
    if (this.kernel && !this.kernel.alive && !this.expectedExit) {
      this.notice(this.lossReport('died while idle'));
    }
    return this.ensureKernel();
  }

  /** Names and namespace summary, in the seed's REPLState shape. */
  state(): Promise<ReplState> {
    return this.serial(async () => {
      const kernel = await this.liveKernel();
      return kernel.request<ReplState>('state');
    });
  }

  /** Stops the kernel and every backend (their whole process groups). */
  protected async stopProcesses(): Promise<void> {
    this.expectedExit = true;
    this.stopped = true;
    this.running?.abort();
    await Promise.all([this.hub.closeAll(), this.kernel?.close()]);
  }

  /** Interrupts a running cell (used at shutdown so the autosave is not stuck behind it). */
  protected interruptRunning(): boolean {
    if (!this.running || !this.kernel) return false;
    this.running.abort();
    this.kernel.interrupt();
    return true;
  }

  /**
   * Ctrl-C for a terminal client: interrupts the running cell (KeyboardInterrupt in Python, its
   * relay calls ended) and returns true, or returns false when no cell runs.
   */
  interrupt(): boolean {
    return this.interruptRunning();
  }

  /**
   * A second Ctrl-C for a cell that ignores the first (stuck in C code): kills the kernel; the
   * cell then ends as KernelDied, a new kernel starts, and the loss is reported. False when no
   * cell runs.
   */
  killRunning(): boolean {
    if (!this.running || !this.kernel) return false;
    void this.kernel.kill();
    return true;
  }

  /**
   * The notices waiting for the next execute result (a restore's outcome, a restart), taken
   * off the queue: a terminal client shows them itself, before the first cell.
   */
  takeNotices(): string[] {
    return this.notices.splice(0);
  }

  /** The hub's live connection to a relay capability's server (diagnostics, bench/repl). */
  backend(name: string): BackendConnection | undefined {
    return this.hub.get(name);
  }

  /** The kernel's pid, for tests and diagnostics. */
  get kernelPid(): number | undefined {
    return this.kernel?.alive ? this.kernel.pid : undefined;
  }
}
