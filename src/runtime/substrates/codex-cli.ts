/**
 * The `codex-cli` substrate: `codex exec --json`, prompt on stdin. What Codex lets a caller
 * control from the command line (`-c key=value` config overrides):
 *
 * - MCP servers: the invocation's servers as `mcp_servers.NAME.*`, each `required` (waited for)
 *   and with `enabled_tools` naming only the role's tools of that server (Codex drops the
 *   others from the tool list, and answers a call to one "unsupported call");
 * - the shell and patch tools cannot be removed: when the role has tools removed, the session
 *   runs under `--sandbox read-only` (the OS sandbox refuses writes from shell commands and
 *   patches) instead of `workspace-write`, with `approval_policy="never"`, so nothing waits
 *   for a human;
 * - the persona's prompt as `developer_instructions`.
 *
 * So Codex enforces no exact tool list and reports no per-call denials; its sandbox is the
 * mechanical limit. A budget's turns cannot be passed (one exec is one Codex turn); tokens are
 * checked as turns complete and wall time by the session's signal. The model provider and key
 * come from the user's Codex config.
 */
import { BudgetMeter, unavailable } from './budget.js';
import { num, obj } from './json.js';
import { jsonLines, notStarted, promptText, runAgentCli } from './process.js';
import { type CliState, isSandboxWriteDenial, SANDBOX_DENIAL, withSandboxNote } from './sandbox.js';
import type { Substrate, SubstrateRequest, SubstrateResult, SubstrateSandbox } from './types.js';

export interface CodexCliOptions {
  readonly command: string;
  readonly model?: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** The OS sandbox confined sessions run in. */
  readonly sandbox: SubstrateSandbox;
}

/** What Codex writes under the home: `CODEX_HOME` (login, sessions, logs); its config stays read-only. */
export function codexState(env: NodeJS.ProcessEnv): CliState {
  const dir = env.CODEX_HOME || '~/.codex';
  return {
    dirs: [dir],
    protect: ['config.toml', 'hooks.json', 'AGENTS.md', 'prompts', 'skills', 'rules'].map(
      (name) => `${dir}/${name}`,
    ),
  };
}

/** A TOML value for a `-c` override (JSON strings and arrays of strings are valid TOML). */
const toml = (value: string | readonly string[]) => JSON.stringify(value);

/** The argv (after the executable); the prompt goes on stdin (`-`). */
export function codexArgs(request: SubstrateRequest, options: Pick<CodexCliOptions, 'model'>): string[] {
  // Confined, the OS sandbox around Codex is the limit (the project read-only, the scratch
  // directory writable), and Codex's own is off: nested inside, it cannot set up its mounts
  // (it creates `.git` mount points in its writable roots). Unconfined, Codex's own is all.
  const mode = request.sandbox
    ? 'danger-full-access'
    : request.removedTools.length === 0
      ? 'workspace-write'
      : 'read-only';
  const args = [
    'exec',
    '--json',
    '--skip-git-repo-check',
    '--sandbox',
    mode,
    '-c',
    'approval_policy="never"',
  ];
  for (const [name, server] of Object.entries(request.mcpServers)) {
    // Codex splits `-c` keys on dots and keeps quotes as part of a name, so the name goes bare
    // (profile server names are letters, digits, `_` and `-`).
    const key = `mcp_servers.${name}`;
    args.push('-c', `${key}.command=${toml(server.command)}`, '-c', `${key}.args=${toml(server.args)}`);
    for (const [k, v] of Object.entries(server.env ?? {})) args.push('-c', `${key}.env.${k}=${toml(v)}`);
    const prefix = `${name}__`;
    const tools = request.tools
      .filter((t) => t.name.startsWith(prefix))
      .map((t) => t.name.slice(prefix.length));
    // `required`: Codex waits for the server before the first model request (and fails the
    // session if it cannot start) instead of offering the model a tool list without it.
    args.push('-c', `${key}.enabled_tools=${toml(tools)}`, '-c', `${key}.required=true`);
  }
  const instructions = withSandboxNote(request.systemPrompt, request.sandbox);
  if (instructions) args.push('-c', `developer_instructions=${toml(instructions)}`);
  if (options.model) args.push('--model', options.model);
  args.push('-');
  return args;
}

export function codexCliSubstrate(options: CodexCliOptions): Substrate {
  return {
    kind: 'codex-cli',
    enforcement: { toolList: false, execution: false },
    sandbox: options.sandbox,
    run: (request) => runCodex(options, request),
  };
}

async function runCodex(options: CodexCliOptions, request: SubstrateRequest): Promise<SubstrateResult> {
  const meter = new BudgetMeter(request.budget, request.signal);
  const kill = new AbortController();
  let lastText = '';
  let failure: string | undefined;
  let budgetFailure: string | undefined;
  const denials: SubstrateResult['permissionDenials'][number][] = [];
  const inputs = new Map<string, unknown>();
  const onLine = jsonLines((event) => {
    const item = obj(event.item);
    if (
      event.type === 'item.started' &&
      (item.type === 'command_execution' || item.type === 'mcp_tool_call')
    ) {
      const name = item.type === 'mcp_tool_call' ? `${String(item.server)}__${String(item.tool)}` : 'shell';
      const input = item.type === 'mcp_tool_call' ? item.arguments : { command: item.command };
      inputs.set(String(item.id), input);
      request.onEvent({ type: 'tool_call', id: String(item.id), name, input });
    } else if (event.type === 'item.completed') {
      if (item.type === 'agent_message' && typeof item.text === 'string') {
        lastText = item.text;
        request.onEvent({ type: 'text', text: item.text });
      } else if (item.type === 'command_execution' || item.type === 'mcp_tool_call') {
        const name = item.type === 'mcp_tool_call' ? `${String(item.server)}__${String(item.tool)}` : 'shell';
        const output =
          item.type === 'command_execution'
            ? String(item.aggregated_output ?? '')
            : JSON.stringify(item.result ?? item.error ?? null);
        const isError = item.status === 'failed' || item.error != null || num(item.exit_code) !== 0;
        // A write the OS sandbox refused (EROFS): Codex reports no denial of its own.
        const refused = request.sandbox !== undefined && isSandboxWriteDenial(name, output);
        const id = String(item.id);
        if (refused) denials.push({ tool: name, input: inputs.get(id) ?? {}, reason: SANDBOX_DENIAL });
        request.onEvent({
          type: 'tool_result',
          id,
          name,
          output,
          isError,
          ...(refused ? { denied: { reason: SANDBOX_DENIAL } } : {}),
        });
      }
    } else if (event.type === 'turn.completed') {
      meter.turns++;
      const usage = obj(event.usage);
      const turn = { inputTokens: num(usage.input_tokens), outputTokens: num(usage.output_tokens) };
      meter.add(turn);
      request.onEvent({ type: 'usage', ...turn });
      // A Codex turn is the whole exec (many model calls), so only tokens can be checked here.
      const max = request.budget.maxTokens;
      if (max !== undefined && meter.inputTokens + meter.outputTokens > max) {
        budgetFailure = `token budget used up (${meter.inputTokens + meter.outputTokens} of ${max})`;
        kill.abort();
      }
    } else if (event.type === 'turn.failed' || event.type === 'error') {
      const message = String(obj(event.error).message ?? event.message ?? 'codex error');
      const retrying = /retry|reconnect/i.test(message) && event.type === 'error';
      request.onEvent({ type: 'error', code: String(event.type), message, retrying });
      if (!retrying) failure = message;
    }
  });
  const run = await runAgentCli(
    options.command,
    codexArgs(request, options),
    {
      cwd: options.cwd,
      env: options.env,
      stdin: promptText(request.messages),
      signal: AbortSignal.any([meter.signal, kill.signal]),
      onLine,
    },
    request.sandbox && { sandbox: options.sandbox, request: request.sandbox, state: codexState(options.env) },
  );
  if (run.spawnError) {
    meter.dispose();
    return unavailable(
      notStarted('codex-cli', options.command, run.spawnError, 'Codex (npm i -g @openai/codex)'),
    );
  }
  if (budgetFailure)
    return meter.result(lastText, { code: 'budget_exhausted', message: budgetFailure }, denials);
  if (meter.signal.aborted) return meter.result(lastText, meter.abortFailure(), denials);
  if (failure || run.code !== 0) {
    const why = failure ?? (run.stderr.trim().split('\n').slice(-3).join(' ') || `exit ${run.code}`);
    return meter.result(lastText, { code: 'substrate_error', message: `codex-cli: ${why}` }, denials);
  }
  return meter.result(lastText, undefined, denials);
}
