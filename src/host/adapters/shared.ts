import type { HookEvent, HostId } from '../ids.js';
import type {
  HookEntry,
  HookInput,
  HookOutput,
  HookResult,
  HostCaps,
  InstallContext,
  Surface,
} from '../types.js';

/** Hook timeouts (seconds): the gate runs on every tool call, capture may read a long transcript. */
export const HOOK_TIMEOUT_SEC: Record<HookEvent, number> = {
  'session-start': 15,
  'pre-tool-use': 10,
  'post-tool-use': 10,
  'post-tool-failure': 10,
  stop: 30,
  'pre-compact': 60,
};

/**
 * The hook registrations a host gets, from its caps table, with timeouts in the host's unit.
 * `host` goes into the command as `--host`; leave it out for a file several hosts read.
 */
export function hookEntries(host: HostId | undefined, caps: HostCaps, ctx: InstallContext): HookEntry[] {
  const scale = caps.hookTimeoutUnit === 'ms' ? 1000 : 1;
  const entries: HookEntry[] = [];
  for (const [event, hostEvent] of Object.entries(caps.events) as [HookEvent, string][]) {
    const matcher = caps.matchers[event];
    entries.push({
      event,
      hostEvent,
      argv: ctx.hookArgv(event, host),
      ...(matcher === undefined ? {} : { matcher }),
      timeout: HOOK_TIMEOUT_SEC[event] * scale,
      ...(caps.asyncEvents?.includes(event) ? { async: true as const } : {}),
    });
  }
  return entries;
}

export function str(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/**
 * snake_case payloads (Claude Code, Codex, Gemini CLI, Cursor, VS Code). The session id is
 * `session_id`, VS Code's camelCase `sessionId` (a common field beside snake_case tool fields),
 * or Cursor's `conversation_id`.
 */
export function normalizeSnakeCase(host: HostId, event: HookEvent, raw: Record<string, unknown>): HookInput {
  const mcpContext = raw.mcp_context as { server_name?: unknown; tool_name?: unknown } | undefined;
  return {
    host,
    event,
    sessionId: str(raw.session_id) ?? str(raw.sessionId) ?? str(raw.conversation_id),
    transcriptPath: str(raw.transcript_path),
    cwd: str(raw.cwd) ?? firstString(raw.workspace_roots),
    source: normalizeSource(raw.source),
    toolName: str(raw.tool_name),
    toolInput: raw.tool_input ?? null,
    mcpServer: str(raw.mcp_server) ?? str(mcpContext?.server_name),
    mcpTool: str(mcpContext?.tool_name),
    lastAssistantMessage: str(raw.last_assistant_message),
    compactTrigger: str(raw.trigger),
    // Claude/Codex/VS Code/Gemini `tool_response`, Cursor `tool_output`, Copilot's snake form `tool_result`.
    toolResponse: raw.tool_response ?? raw.tool_output ?? raw.tool_result ?? null,
    toolError: toolErrorOf(raw.error ?? raw.error_message, raw.tool_response ?? raw.tool_result),
    durationMs: num(raw.duration_ms) ?? num(raw.duration),
    toolUseId: str(raw.tool_use_id),
  };
}

export function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/**
 * The error a tool hook reports: a failure event's `error` (Claude Code, Copilot CLI) or
 * `error_message` (Cursor), Gemini CLI's `tool_response.error`, or a Copilot result whose type
 * is not `success`.
 */
export function toolErrorOf(error: unknown, response: unknown): string | null {
  if (typeof error === 'string' && error.trim()) return error;
  if (error && typeof error === 'object')
    return str((error as { message?: unknown }).message) ?? JSON.stringify(error);
  if (response && typeof response === 'object') {
    const r = response as Record<string, unknown>;
    const nested = r.error;
    if (typeof nested === 'string' && nested.trim()) return nested;
    if (nested && typeof nested === 'object')
      return str((nested as { message?: unknown }).message) ?? 'error';
    const type = str(r.resultType) ?? str(r.result_type);
    if (type && type !== 'success')
      return `${type}: ${str(r.textResultForLlm) ?? str(r.text_result_for_llm) ?? ''}`.trim();
  }
  return null;
}

/** Copilot CLI and VS Code say `new` where Claude Code says `startup`. */
export function normalizeSource(value: unknown): string | null {
  const source = str(value);
  return source === 'new' ? 'startup' : source;
}

function firstString(value: unknown): string | null {
  return Array.isArray(value) ? str(value[0]) : null;
}

/** `{"hookSpecificOutput":{…}}`: Claude Code and Codex. Allow prints nothing, so the host's own
 * permission flow still runs (an explicit "allow" would skip the user's prompts). */
export function formatHookSpecific(event: HookEvent, result: HookResult, hostEvent: string): HookOutput {
  switch (result.kind) {
    case 'context':
      return json({ hookSpecificOutput: { hookEventName: hostEvent, additionalContext: result.text } });
    case 'ask':
      return json({
        hookSpecificOutput: {
          hookEventName: hostEvent,
          permissionDecision: 'ask',
          permissionDecisionReason: result.reason,
        },
      });
    case 'deny':
      return json({
        hookSpecificOutput: {
          hookEventName: hostEvent,
          permissionDecision: 'deny',
          permissionDecisionReason: result.reason,
        },
      });
    default:
      return quiet(event, result);
  }
}

export function json(value: unknown): HookOutput {
  return { stdout: JSON.stringify(value), exitCode: 0 };
}

/** Nothing for the host; a `none` note goes to stderr as a diagnostic. */
export function quiet(_event: HookEvent, result: HookResult): HookOutput {
  return {
    stdout: '',
    ...(result.kind === 'none' && result.note ? { stderr: result.note } : {}),
    exitCode: 0,
  };
}

/**
 * What a hooks file's label says about its commands, so install and doctor say which file holds
 * them and why: by name (a team can commit it), in the host's uncommitted local file, or naming
 * this machine's paths in a file the host has no local twin for.
 */
export function hooksLabel(ctx: InstallContext, where: 'shared' | 'local'): string {
  // Short: every hook call loads the adapters (the installer's note says how to fix the rest).
  if (ctx.portable) return 'hooks (by name: safe to commit)';
  return where === 'local' ? "hooks (local: name this machine's paths)" : "hooks (name this machine's paths)";
}

/**
 * The bootstrap block in a markdown instruction file the host loads. `toolPrefix` only for a file
 * this host alone reads (CLAUDE.md): the block then names the tools as the host offers them.
 */
export function bootstrapBlock(path: string, toolPrefix?: string): Surface {
  return {
    kind: 'instructions',
    path,
    format: 'markdown',
    label: 'bootstrap block',
    ...(toolPrefix === undefined ? {} : { toolPrefix }),
  };
}
