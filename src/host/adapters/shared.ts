import type { HookEvent, HostId } from '../ids.js';
import type { HookEntry, HookInput, HookOutput, HookResult, HostCaps, InstallContext } from '../types.js';

/** Hook timeouts (seconds): the gate runs on every tool call, capture may read a long transcript. */
export const HOOK_TIMEOUT_SEC: Record<HookEvent, number> = {
  'session-start': 15,
  'pre-tool-use': 10,
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
  return {
    host,
    event,
    sessionId: str(raw.session_id) ?? str(raw.sessionId) ?? str(raw.conversation_id),
    transcriptPath: str(raw.transcript_path),
    cwd: str(raw.cwd) ?? firstString(raw.workspace_roots),
    source: normalizeSource(raw.source),
    toolName: str(raw.tool_name),
    toolInput: raw.tool_input ?? null,
    mcpServer:
      str(raw.mcp_server) ?? str((raw.mcp_context as { server_name?: unknown } | undefined)?.server_name),
    lastAssistantMessage: str(raw.last_assistant_message),
    compactTrigger: str(raw.trigger),
  };
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
