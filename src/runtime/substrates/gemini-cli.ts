/**
 * The `gemini-cli` substrate: `gemini -p --output-format stream-json`, prompt on stdin. What
 * Gemini CLI lets a caller control without touching the user's files:
 *
 * - a policy file (`--policy`) from the policy engine: `allow` for each of the role's tools,
 *   `deny` for each removed tool, with `--approval-mode default` (a headless run then drops the
 *   shell and edit tools unless allowed);
 * - the invocation's MCP servers in a system settings file (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`,
 *   which overrides user and project settings; Gemini CLI ignores one under a world-writable
 *   directory, so it lives in `~/.cache/firstlight/gemini-sessions/` for the session) and `--allowed-mcp-server-names` naming only them,
 *   with `tools.exclude` naming the removed tools so they are not offered.
 *
 * A removed tool is not offered; a call to one anyway ("Tool … not found") is reported as a
 * permission denial. A server tool that is neither the role's nor removed is not stopped (the
 * runtime passes every server tool outside the role as removed). The persona's prompt has no
 * flag of its own; it goes on stdin before the task.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { BudgetMeter, unavailable } from './budget.js';
import { type Json, num, obj } from './json.js';
import { jsonLines, notStarted, promptText, runAgentCli } from './process.js';
import { type CliState, isSandboxWriteDenial, SANDBOX_DENIAL, withSandboxNote } from './sandbox.js';
import type { Substrate, SubstrateRequest, SubstrateResult, SubstrateSandbox } from './types.js';

export interface GeminiCliOptions {
  readonly command: string;
  readonly model?: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** The OS sandbox confined sessions run in. */
  readonly sandbox: SubstrateSandbox;
}

/** What Gemini CLI writes under the home: `~/.gemini` (login, history, temp); its settings stay read-only. */
export function geminiState(): CliState {
  return {
    dirs: ['~/.gemini'],
    protect: ['settings.json', 'trustedFolders.json', 'GEMINI.md', 'extensions', 'commands', 'policies'].map(
      (name) => `~/.gemini/${name}`,
    ),
  };
}

/** The runtime's built-in tool names (Claude Code's) as Gemini CLI names its own. */
const GEMINI_BUILTINS: Readonly<Record<string, string>> = {
  Read: 'read_file',
  Grep: 'grep_search',
  Glob: 'glob',
  LS: 'list_directory',
  WebSearch: 'google_web_search',
  WebFetch: 'web_fetch',
  Write: 'write_file',
  Edit: 'replace',
  MultiEdit: 'replace',
  Bash: 'run_shell_command',
};

/**
 * The name Gemini CLI gives a tool: hub tools (`server__tool`) become `mcp_server_tool`, the
 * runtime's built-in names become Gemini's (`Bash` → `run_shell_command`).
 */
export function geminiToolName(name: string): string {
  const at = name.indexOf('__');
  if (at !== -1) return `mcp_${name.slice(0, at)}_${name.slice(at + 2)}`;
  return GEMINI_BUILTINS[name] ?? name;
}

/** Back from Gemini's name to the runtime's, for events and denials. */
function runtimeToolName(name: string, request: SubstrateRequest): string {
  for (const server of Object.keys(request.mcpServers)) {
    const prefix = `mcp_${server}_`;
    if (name.startsWith(prefix)) return `${server}__${name.slice(prefix.length)}`;
  }
  for (const tool of [...request.tools.map((t) => t.name), ...request.removedTools])
    if (geminiToolName(tool) === name) return tool;
  return name;
}

/** The policy file: one rule per allowed and per removed tool. */
export function geminiPolicy(request: SubstrateRequest): string {
  const rule = (tool: string, decision: 'allow' | 'deny', priority: number) =>
    `[[rule]]\ntoolName = ${JSON.stringify(geminiToolName(tool))}\ndecision = "${decision}"\npriority = ${priority}\n`;
  return [
    ...[...new Set(request.removedTools)].map((t) => rule(t, 'deny', 900)),
    ...request.tools.map((t) => rule(t.name, 'allow', 800)),
  ].join('\n');
}

/** The system settings: the invocation's MCP servers and the removed tools excluded. */
export function geminiSettings(request: SubstrateRequest): object {
  return {
    mcpServers: Object.fromEntries(
      Object.entries(request.mcpServers).map(([name, s]) => [
        name,
        { command: s.command, args: [...s.args], ...(s.env ? { env: s.env } : {}) },
      ]),
    ),
    tools: { exclude: [...new Set(request.removedTools.map(geminiToolName))] },
  };
}

export function geminiArgs(
  request: SubstrateRequest,
  options: Pick<GeminiCliOptions, 'model'>,
  policyFile: string,
): string[] {
  const servers = Object.keys(request.mcpServers);
  return [
    '--output-format',
    'stream-json',
    '--approval-mode',
    'default',
    '--policy',
    policyFile,
    ...(servers.length > 0 ? ['--allowed-mcp-server-names', ...servers] : []),
    ...(options.model ? ['--model', options.model] : []),
    // The scratch directory joins the workspace, so the file tools may write there.
    ...(request.sandbox ? ['--include-directories', request.sandbox.scratchDir] : []),
    // Headless; the prompt itself comes on stdin ("Appended to input on stdin").
    '--prompt',
    ' ',
  ];
}

export function geminiCliSubstrate(options: GeminiCliOptions): Substrate {
  return {
    kind: 'gemini-cli',
    enforcement: { toolList: false, execution: false },
    sandbox: options.sandbox,
    run: (request) => runGemini(options, request),
  };
}

async function runGemini(options: GeminiCliOptions, request: SubstrateRequest): Promise<SubstrateResult> {
  const meter = new BudgetMeter(request.budget, request.signal);
  // Gemini CLI skips a system settings file under a world-writable directory (/tmp), so the
  // session's files go under the user's cache, private to them.
  const parent = join(homedir(), '.cache', 'firstlight', 'gemini-sessions');
  mkdirSync(parent, { recursive: true, mode: 0o700 });
  const dir = mkdtempSync(join(parent, 'session-'));
  const policyFile = join(dir, 'policy.toml');
  const settingsFile = join(dir, 'settings.json');
  writeFileSync(policyFile, geminiPolicy(request));
  writeFileSync(settingsFile, JSON.stringify(geminiSettings(request)));
  const names = new Map<string, string>();
  const inputs = new Map<string, unknown>();
  const removedSet = new Set(request.removedTools);
  const denials: SubstrateResult['permissionDenials'][number][] = [];
  let text = '';
  let result: Json | undefined;
  const onLine = jsonLines((event) => {
    if (event.type === 'message' && event.role === 'assistant' && typeof event.content === 'string') {
      text = event.delta === true ? text + event.content : event.content;
      request.onEvent({ type: 'text', text: event.content });
    } else if (event.type === 'tool_use') {
      const id = String(event.tool_id);
      const name = runtimeToolName(String(event.tool_name), request);
      names.set(id, name);
      inputs.set(id, event.parameters);
      request.onEvent({ type: 'tool_call', id, name, input: event.parameters });
    } else if (event.type === 'tool_result') {
      const id = String(event.tool_id);
      const error = obj(event.error);
      const output = typeof event.output === 'string' ? event.output : String(error.message ?? '');
      const name = names.get(id) ?? 'unknown';
      // A removed tool is not registered ("Tool … not found"); a policy denial says so.
      const removed = removedSet.has(name) && /not found/i.test(output);
      const refused = !removed && /denied|not allowed|policy/i.test(`${String(error.type ?? '')} ${output}`);
      if (removed || refused) denials.push({ tool: name, input: inputs.get(id) });
      // A write the OS sandbox refused (EROFS), in a shell's output or a file tool's error.
      const confined =
        !removed && !refused && request.sandbox !== undefined && isSandboxWriteDenial(name, output);
      if (confined) denials.push({ tool: name, input: inputs.get(id), reason: SANDBOX_DENIAL });
      const reason = removed ? 'removed_tool' : refused ? 'policy' : confined ? SANDBOX_DENIAL : '';
      request.onEvent({
        type: 'tool_result',
        id,
        name,
        output,
        isError: event.status === 'error',
        ...(reason ? { denied: { reason } } : {}),
      });
    } else if (event.type === 'error') {
      request.onEvent({ type: 'error', code: 'gemini', message: String(event.message), retrying: false });
    } else if (event.type === 'result') {
      result = event;
    }
  });
  try {
    const systemPrompt = withSandboxNote(request.systemPrompt, request.sandbox);
    const run = await runAgentCli(
      options.command,
      geminiArgs(request, options, policyFile),
      {
        cwd: options.cwd,
        env: { ...options.env, GEMINI_CLI_SYSTEM_SETTINGS_PATH: settingsFile },
        stdin: [systemPrompt, promptText(request.messages)].filter(Boolean).join('\n\n'),
        signal: meter.signal,
        onLine,
      },
      request.sandbox && { sandbox: options.sandbox, request: request.sandbox, state: geminiState() },
    );
    if (run.spawnError) {
      meter.dispose();
      return unavailable(
        notStarted('gemini-cli', options.command, run.spawnError, 'Gemini CLI (npm i -g @google/gemini-cli)'),
      );
    }
    const stats = obj(result?.stats);
    meter.add({ inputTokens: num(stats.input_tokens), outputTokens: num(stats.output_tokens) });
    meter.turns = Math.max(1, num(stats.tool_calls) + 1);
    if (result) request.onEvent({ type: 'usage', ...meter.usage });
    if (meter.signal.aborted) return meter.result(text, meter.abortFailure(), denials);
    if (result?.status !== 'success') {
      const why =
        String(obj(result?.error).message ?? '') ||
        run.stderr.trim().split('\n').slice(-3).join(' ') ||
        `exit ${run.code}`;
      return meter.result(text, { code: 'substrate_error', message: `gemini-cli: ${why}` }, denials);
    }
    return meter.result(text, undefined, denials);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
