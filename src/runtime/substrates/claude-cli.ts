/**
 * The `claude-cli` substrate: Claude Code headless (`claude -p --output-format stream-json
 * --verbose`), with the role's tools enforced by the CLI's own flags:
 *
 * - `--permission-mode dontAsk` with `--allowedTools` naming exactly the role's tools: any
 *   other tool call is refused by the CLI and listed in the result's `permission_denials`;
 * - `--tools` naming the built-in tools the role has (`""` when it has none) and
 *   `--disallowedTools` naming every removed tool: those are not offered to the model at all
 *   (`--allowedTools` alone removes nothing, it only pre-approves);
 * - `--strict-mcp-config --mcp-config JSON`: the invocation's MCP servers and no others;
 * - `--append-system-prompt`: the persona's prompt after Claude Code's own.
 *
 * Tool calls run inside the CLI, so `request.executeTool` is never called; the CLI's refusals
 * come back as `permissionDenials`: its permission denials, and calls to a removed tool it
 * answered with "No such tool available". Tool names in events and denials are the runtime's
 * (`memory__read_graph`), not Claude Code's (`mcp__memory__read_graph`).
 */
import { BudgetMeter, unavailable } from './budget.js';
import { type Json, list, num, obj } from './json.js';
import { jsonLines, notStarted, promptText, runAgentCli } from './process.js';
import { type CliState, isSandboxWriteDenial, SANDBOX_DENIAL, withSandboxNote } from './sandbox.js';
import type {
  Substrate,
  SubstrateRequest,
  SubstrateResult,
  SubstrateSandbox,
  SubstrateTool,
} from './types.js';

export interface ClaudeCliOptions {
  /** The `claude` executable. */
  readonly command: string;
  readonly model?: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** The OS sandbox confined sessions run in. */
  readonly sandbox: SubstrateSandbox;
}

/**
 * What Claude Code writes under the home: its config directory (login, sessions, todos). Its
 * user-level settings, instructions, agents, commands, skills and plugins there stay read-only,
 * and so does `~/.claude.json` (it holds per-project MCP servers): a confined session can plant
 * neither a hook nor a server for later ones. Claude Code runs without saving that file.
 */
export function claudeState(env: NodeJS.ProcessEnv): CliState {
  const dir = env.CLAUDE_CONFIG_DIR || '~/.claude';
  const protect = ['settings.json', 'settings.local.json', 'CLAUDE.md', 'agents', 'commands', 'skills'];
  return {
    dirs: [dir],
    protect: [...protect, 'plugins', 'hooks', '.claude.json'].map((name) => `${dir}/${name}`),
  };
}

/** The name Claude Code gives a tool: hub tools (`server__tool`) become `mcp__server__tool`. */
export function claudeToolName(name: string): string {
  return name.includes('__') && !name.startsWith('mcp__') ? `mcp__${name}` : name;
}

const isBuiltIn = (name: string) => !claudeToolName(name).startsWith('mcp__');

/** Back from Claude Code's name to the runtime's (`mcp__memory__read_graph` → `memory__read_graph`). */
function runtimeToolName(name: string, request: SubstrateRequest): string {
  if (!name.startsWith('mcp__')) return name;
  const rest = name.slice('mcp__'.length);
  return Object.hasOwn(request.mcpServers, rest.split('__')[0]!) ? rest : name;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The argv (after the executable) for one session; the prompt goes on stdin. */
export function claudeArgs(request: SubstrateRequest, options: Pick<ClaudeCliOptions, 'model'>): string[] {
  const names = (tools: readonly (SubstrateTool | string)[]) =>
    tools.map((t) => claudeToolName(typeof t === 'string' ? t : t.name));
  const builtIns = request.tools.filter((t) => isBuiltIn(t.name)).map((t) => t.name);
  const mcpServers = Object.fromEntries(
    Object.entries(request.mcpServers).map(([name, s]) => [
      name,
      { type: 'stdio', command: s.command, args: [...s.args], ...(s.env ? { env: s.env } : {}) },
    ]),
  );
  const args = [
    '-p',
    '--output-format',
    'stream-json',
    '--verbose',
    '--permission-mode',
    'dontAsk',
    '--strict-mcp-config',
    '--mcp-config',
    JSON.stringify({ mcpServers }),
    '--tools',
    builtIns.join(','),
  ];
  if (request.tools.length > 0) args.push('--allowedTools', ...names(request.tools));
  if (request.removedTools.length > 0) args.push('--disallowedTools', ...names(request.removedTools));
  const systemPrompt = withSandboxNote(request.systemPrompt, request.sandbox);
  if (systemPrompt) args.push('--append-system-prompt', systemPrompt);
  // The scratch directory is a working directory too, so its edits need no permission.
  if (request.sandbox) args.push('--add-dir', request.sandbox.scratchDir);
  if (options.model) args.push('--model', options.model);
  args.push('--max-turns', String(request.budget.maxTurns));
  if (UUID.test(request.sessionId)) args.push('--session-id', request.sessionId);
  return args;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return list(content)
    .map((p) => (typeof obj(p).text === 'string' ? (obj(p).text as string) : JSON.stringify(p)))
    .join('');
}

const NO_SUCH_TOOL = /No such tool available: ([^\s.<]+)/;
const PERMISSION_DENIED = /^Permission to use (\S+) has been denied/;

export function claudeCliSubstrate(options: ClaudeCliOptions): Substrate {
  return {
    kind: 'claude-cli',
    enforcement: { toolList: true, execution: true },
    sandbox: options.sandbox,
    run: (request) => runClaude(options, request),
  };
}

async function runClaude(options: ClaudeCliOptions, request: SubstrateRequest): Promise<SubstrateResult> {
  const meter = new BudgetMeter(request.budget, request.signal);
  const kill = new AbortController();
  const signal = AbortSignal.any([meter.signal, kill.signal]);
  const calls = new Map<string, { name: string; input: unknown }>();
  const seenMessages = new Set<string>();
  const denials: SubstrateResult['permissionDenials'][number][] = [];
  let result: Json | undefined;
  let lastText = '';
  let tokenFailure: string | undefined;

  const onLine = jsonLines((event) => {
    if (event.type === 'assistant') {
      const message = obj(event.message);
      for (const part of list(message.content)) {
        const p = obj(part);
        if (p.type === 'text' && typeof p.text === 'string') {
          lastText = p.text;
          request.onEvent({ type: 'text', text: p.text });
        } else if (p.type === 'tool_use') {
          const call = { id: String(p.id), name: runtimeToolName(String(p.name), request), input: p.input };
          calls.set(call.id, call);
          request.onEvent({ type: 'tool_call', ...call });
        }
      }
      // Each content block arrives as its own event carrying the message's usage: count it once.
      const id = String(message.id ?? '');
      if (id && !seenMessages.has(id)) {
        seenMessages.add(id);
        const usage = obj(message.usage);
        meter.add({ inputTokens: num(usage.input_tokens), outputTokens: num(usage.output_tokens) });
        const max = request.budget.maxTokens;
        if (max !== undefined && meter.inputTokens + meter.outputTokens > max && !tokenFailure) {
          tokenFailure = `token budget used up (${meter.inputTokens + meter.outputTokens} of ${max})`;
          kill.abort();
        }
      }
    } else if (event.type === 'user') {
      for (const part of list(obj(event.message).content)) {
        const p = obj(part);
        if (p.type !== 'tool_result') continue;
        const id = String(p.tool_use_id);
        const call = calls.get(id);
        const output = resultText(p.content);
        const removed = NO_SUCH_TOOL.exec(output)?.[1];
        const refused = PERMISSION_DENIED.exec(output)?.[1];
        const name = call?.name ?? runtimeToolName(removed ?? refused ?? 'unknown', request);
        const input = call ? { input: call.input } : {};
        // A removed tool is not in permission_denials (the CLI never offered it); record it here.
        if (removed) denials.push({ tool: name, ...input });
        // A write the OS sandbox refused: the CLI ran the tool, the kernel said EROFS.
        const confined = !removed && !refused && request.sandbox && isSandboxWriteDenial(name, output);
        if (confined) denials.push({ tool: name, ...input, reason: SANDBOX_DENIAL });
        const reason = removed
          ? 'removed_tool'
          : refused
            ? 'permission_denied'
            : confined
              ? SANDBOX_DENIAL
              : '';
        request.onEvent({
          type: 'tool_result',
          id,
          name,
          output,
          isError: p.is_error === true,
          ...(reason ? { denied: { reason } } : {}),
        });
      }
    } else if (event.type === 'system' && event.subtype === 'api_retry') {
      request.onEvent({
        type: 'error',
        code: String(event.error_status ?? event.error ?? 'api_retry'),
        message: `model API error; Claude Code retries (attempt ${num(event.attempt)})`,
        retrying: true,
      });
    } else if (event.type === 'result') {
      result = event;
    }
  });

  const env = { MCP_CONNECTION_NONBLOCKING: 'false', ...options.env };
  const run = await runAgentCli(
    options.command,
    claudeArgs(request, options),
    {
      cwd: options.cwd,
      // In -p mode Claude Code may send the first model request before the MCP servers are up,
      // and the role's tools would be missing from it; this makes it wait for them.
      env,
      stdin: promptText(request.messages),
      signal,
      onLine,
    },
    request.sandbox && { sandbox: options.sandbox, request: request.sandbox, state: claudeState(env) },
  );
  if (run.spawnError) {
    meter.dispose();
    return unavailable(
      notStarted(
        'claude-cli',
        options.command,
        run.spawnError,
        'Claude Code (npm i -g @anthropic-ai/claude-code)',
      ),
    );
  }
  for (const d of list(result?.permission_denials)) {
    const denial = obj(d);
    denials.push({ tool: runtimeToolName(String(denial.tool_name), request), input: denial.tool_input });
  }
  if (result) {
    const usage = obj(result.usage);
    const cost = typeof result.total_cost_usd === 'number' ? result.total_cost_usd : undefined;
    // The result's totals replace the running count (cache tokens are input too).
    meter.inputTokens =
      num(usage.input_tokens) + num(usage.cache_creation_input_tokens) + num(usage.cache_read_input_tokens);
    meter.outputTokens = num(usage.output_tokens);
    meter.costUsd = cost;
    meter.turns = num(result.num_turns);
    request.onEvent({ type: 'usage', ...meter.usage });
  }
  if (tokenFailure)
    return meter.result(lastText, { code: 'budget_exhausted', message: tokenFailure }, denials);
  if (meter.signal.aborted) return meter.result(lastText, meter.abortFailure(), denials);
  if (!result) {
    const why = run.stderr.trim().split('\n').slice(-3).join(' ') || `exit ${run.code ?? run.signal}`;
    request.onEvent({ type: 'error', code: 'cli_failed', message: why, retrying: false });
    return meter.result(lastText, { code: 'substrate_error', message: `claude-cli: ${why}` }, denials);
  }
  const text = typeof result.result === 'string' ? result.result : lastText;
  if (result.subtype === 'error_max_turns')
    return meter.result(
      text,
      { code: 'budget_exhausted', message: `all ${request.budget.maxTurns} turn(s) used` },
      denials,
    );
  if (result.subtype === 'error_max_budget_usd')
    return meter.result(text, { code: 'budget_exhausted', message: 'cost budget used up' }, denials);
  if (result.is_error === true || result.subtype !== 'success') {
    const message = `claude-cli: ${String(result.subtype)}${typeof result.result === 'string' ? `: ${result.result}` : ''}`;
    request.onEvent({ type: 'error', code: String(result.subtype), message, retrying: false });
    return meter.result(text, { code: 'substrate_error', message }, denials);
  }
  return meter.result(text, undefined, denials);
}
