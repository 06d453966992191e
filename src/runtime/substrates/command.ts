/**
 * The `command` substrate: any CLI that reads a prompt on stdin and answers on stdout (`llm`,
 * `ollama run MODEL`, a script). It has no tools: the model is offered none, so a role's tool
 * rules hold trivially; a request that carries tools says so in an `error` event and runs
 * without them. The system prompt and the conversation go on stdin, in that order.
 */
import { BudgetMeter, unavailable } from './budget.js';
import { promptText, runCli } from './process.js';
import type { Substrate } from './types.js';

export interface CommandOptions {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

export function commandSubstrate(options: CommandOptions): Substrate {
  return {
    kind: 'command',
    // Nothing is offered and nothing can be called: both hold by construction.
    enforcement: { toolList: true, execution: true },
    async run(request) {
      const [command, ...args] = options.argv;
      if (!command) return unavailable('command: no command given; use --substrate "command:PROGRAM ARGS…"');
      const meter = new BudgetMeter(request.budget, request.signal);
      if (request.tools.length > 0) {
        request.onEvent({
          type: 'error',
          code: 'tools_not_offered',
          message: `command substrate offers no tools; ${request.tools.length} tool(s) of the role are not available to "${command}"`,
          retrying: false,
        });
      }
      const stdin = [request.systemPrompt, promptText(request.messages)].filter(Boolean).join('\n\n');
      const lines: string[] = [];
      const run = await runCli(command, args, {
        cwd: options.cwd,
        env: options.env,
        stdin,
        signal: meter.signal,
        onLine: (line) => {
          lines.push(line);
          request.onEvent({ type: 'text', text: `${line}\n` });
        },
      });
      if (run.spawnError) {
        meter.dispose();
        return unavailable(`command: could not start "${command}": ${run.spawnError.message}`);
      }
      meter.turns = 1;
      const text = lines.join('\n');
      if (meter.signal.aborted) return meter.result(text, meter.abortFailure());
      if (run.code !== 0) {
        const why = run.stderr.trim().split('\n').slice(-3).join(' ') || `exit ${run.code ?? run.signal}`;
        request.onEvent({ type: 'error', code: 'cli_failed', message: why, retrying: false });
        return meter.result(text, {
          code: 'substrate_error',
          message: `command "${command}" failed: ${why}`,
        });
      }
      return meter.result(text);
    },
  };
}
