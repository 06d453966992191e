/**
 * `firstlight repl`: a Python prompt on the harness the MCP server uses. Lines are read with
 * history (`<home>/repl/history`) and joined into cells the way Python's REPL joins them; a cell
 * runs in the project's kernel; Ctrl-C interrupts it (twice: the kernel is restarted); Ctrl-D or
 * exit() quits and saves the namespace to the project's autosave, where the next `firstlight
 * repl` (or `repl serve`) in the project finds it.
 */
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import type { Logger } from '../../core/index.js';
import { startHarness } from '../repl-harness.js';
import { cellComplete } from './cell-input.js';
import { appendHistory, loadHistory } from './history.js';
import { showResult } from './show.js';

export interface TerminalOptions {
  home?: string;
  kernel?: string;
}

const QUIT = new Set(['exit()', 'quit()', 'exit', 'quit', ':q', ':quit']);

const HELP = [
  "Cells run in this project's Python kernel, the same harness `firstlight repl serve` gives agents.",
  '  Ctrl-C           interrupt the running cell (a second Ctrl-C restarts the kernel)',
  '  Ctrl-D, exit()   quit; the namespace is saved to the project autosave for next time',
  '  :state           functions, variables and capabilities',
  '  :help            this text',
  'A compound statement (def, for, if, …) ends with an empty line. Capabilities: firstlight repl capability --help',
].join('\n');

/** A logger that holds messages until the prompt is ready, then prints warnings dimmed. */
function terminalLogger(): Logger & { flush(): void; infos: string[] } {
  const debug = process.env.FIRSTLIGHT_LOG === 'debug';
  let held: string[] | undefined = [];
  const infos: string[] = [];
  const say = (text: string) => {
    if (held) held.push(text);
    else process.stderr.write(`${dim(text)}\n`);
  };
  return {
    infos,
    error: (m) => say(`firstlight repl: ${m}`),
    warn: (m) => say(`firstlight repl: ${m}`),
    info: (m) => {
      infos.push(m);
      if (debug) say(`firstlight repl: ${m}`);
    },
    debug: (m) => {
      if (debug) say(`firstlight repl: ${m}`);
    },
    flush() {
      const lines = held ?? [];
      held = undefined;
      for (const line of lines) process.stderr.write(`${dim(line)}\n`);
    },
  };
}

const colour = () => process.stderr.isTTY === true && !process.env.NO_COLOR;
const dim = (text: string) => (colour() ? `\x1b[2m${text}\x1b[0m` : text);
const red = (text: string) => (colour() && text ? `\x1b[31m${text}\x1b[0m` : text);

/** Runs the prompt until Ctrl-D or exit(); resolves with the exit code. */
export async function runTerminalRepl(options: TerminalOptions): Promise<number> {
  const log = terminalLogger();
  const harness = await startHarness(options, log);
  const { repl } = harness;
  const interactive = process.stdin.isTTY === true;
  // Wait for the autosave's restore: its outcome is the first thing to say, not cell 1's stderr.
  await repl.state();
  repl.takeNotices();
  if (interactive) {
    process.stdout.write(
      [
        `firstlight repl: Python (${harness.settings.kernel} kernel) in ${harness.project.dir}`,
        `  state: ${harness.autosave} in ${join(harness.home, 'repl', 'states')}; Ctrl-C interrupts, Ctrl-D or exit() quits, :help`,
        '',
      ].join('\n'),
    );
  }
  log.flush();
  const historyFile = join(harness.home, 'repl', 'history');
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: interactive,
    history: interactive ? loadHistory(historyFile) : [],
    historySize: 1000,
    removeHistoryDuplicates: true,
  });
  return new Promise<number>((resolveExit) => {
    const session = new PromptSession(rl, interactive, {
      run: async (code) => {
        const result = await repl.execute(code, { repr: true });
        const shown = showResult(result);
        process.stdout.write(shown.stdout);
        process.stderr.write(red(shown.stderr));
      },
      state: async () => {
        const state = await repl.state();
        const functions = state.defined_functions.map((f) => `${f.name}${f.signature}`);
        process.stdout.write(
          [
            `functions:    ${functions.join(', ') || '(none)'}`,
            `variables:    ${
              Object.entries(state.variables)
                .map(([name, type]) => `${name}: ${type}`)
                .join(', ') || '(none)'
            }`,
            `capabilities: ${state.capabilities.join(', ') || '(none)'}`,
            `cells run:    ${state.execution_count}`,
            '',
          ].join('\n'),
        );
      },
      interrupt: (times) => (times > 1 ? repl.killRunning() : repl.interrupt()),
      recordLine: (line) => {
        if (interactive) appendHistory(historyFile, line);
      },
      quit: async () => {
        await repl.shutdown();
        // The autosave's outcome ("State saved to autosave.….json"), said once on the way out.
        if (interactive) for (const info of log.infos.splice(0)) process.stderr.write(`${dim(info)}\n`);
        resolveExit(0);
      },
    });
    session.start();
  });
}

interface SessionActions {
  run(code: string): Promise<void>;
  state(): Promise<void>;
  /** Ctrl-C during a cell, the `times`th for it; false when no cell ran. */
  interrupt(times: number): boolean;
  recordLine(line: string): void;
  quit(): Promise<void>;
}

/** The read loop: lines into cells, one cell at a time, lines typed meanwhile queued. */
class PromptSession {
  private buffer: string[] = [];
  private queue: string[] = [];
  private running = false;
  private interrupts = 0;
  private closing = false;
  private quitting = false;

  constructor(
    private readonly rl: Interface,
    private readonly interactive: boolean,
    private readonly actions: SessionActions,
  ) {}

  start(): void {
    this.rl.on('line', (line) => {
      this.actions.recordLine(line);
      if (this.running) this.queue.push(line);
      else void this.take(line);
    });
    this.rl.on('SIGINT', () => this.onInterrupt());
    process.on('SIGINT', () => this.onInterrupt());
    this.rl.on('close', () => {
      this.closing = true;
      if (!this.running && this.queue.length === 0) void this.quit();
    });
    this.prompt();
  }

  private prompt(): void {
    if (!this.interactive || this.closing) return;
    this.rl.setPrompt(this.buffer.length > 0 ? '... ' : '>>> ');
    this.rl.prompt();
  }

  /** One line: a command, or part of a cell (run when complete). */
  private async take(line: string): Promise<void> {
    const trimmed = line.trim();
    if (this.buffer.length === 0 && QUIT.has(trimmed)) {
      this.rl.close();
      return;
    }
    if (this.buffer.length === 0 && (trimmed === ':help' || trimmed === ':state')) {
      if (trimmed === ':help') process.stdout.write(`${HELP}\n`);
      else await this.busy(() => this.actions.state());
      this.prompt();
      return;
    }
    this.buffer.push(line);
    if (!cellComplete(this.buffer)) {
      this.prompt();
      return;
    }
    const code = this.buffer.join('\n');
    this.buffer = [];
    if (code.trim() !== '') await this.busy(() => this.actions.run(code));
    this.prompt();
  }

  /** Runs `work` with the prompt off; lines typed meanwhile are taken after it, in order. */
  private async busy(work: () => Promise<void>): Promise<void> {
    this.running = true;
    this.interrupts = 0;
    try {
      await work();
    } catch (error) {
      process.stderr.write(`firstlight repl: ${(error as Error).message}\n`);
    } finally {
      this.running = false;
    }
    while (!this.running && this.queue.length > 0) await this.take(this.queue.shift()!);
    if (this.closing && !this.running && this.queue.length === 0) await this.quit();
  }

  private onInterrupt(): void {
    if (this.running) {
      this.interrupts++;
      if (this.interrupts === 2) process.stderr.write('\n(the cell ignored Ctrl-C: restarting the kernel)\n');
      this.actions.interrupt(this.interrupts);
      return;
    }
    if (!this.interactive) {
      this.rl.close();
      return;
    }
    const typed = this.buffer.length > 0 || this.rl.line.length > 0;
    this.buffer = [];
    // Clear what was typed on the line: Ctrl-E (to its end), then Ctrl-U (delete to its start).
    this.rl.write(null, { ctrl: true, name: 'e' });
    this.rl.write(null, { ctrl: true, name: 'u' });
    process.stdout.write(typed ? '\nKeyboardInterrupt\n' : '\n(To exit, press Ctrl-D or type exit())\n');
    this.prompt();
  }

  private async quit(): Promise<void> {
    if (this.quitting) return;
    this.quitting = true;
    if (this.interactive) process.stdout.write('\n');
    await this.actions.quit();
  }
}
