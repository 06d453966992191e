/**
 * The hook pipeline: parse stdin, pick the adapter (the payload's shape wins over `--host`:
 * Copilot CLI and VS Code also run the hooks in .claude/settings.json), normalise, run the
 * event's handler (handlers.ts), format. Returns the output; emit.ts writes it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { adapterFor } from '../adapters/index.js';
import { HOOK_EVENTS, type HookEvent, type HostId, isHookEvent, isHostId } from '../ids.js';
import type { HookInput, HookOutput, HookResult, HostAdapter } from '../types.js';
import { callFirst } from './call-first.js';

export interface HookRunOptions {
  event: string;
  /** `--host`; the payload's shape overrides it when they disagree. */
  host?: string;
  home: string;
  env: NodeJS.ProcessEnv;
  /** Fallback project directory when the payload carries no `cwd`. */
  cwd: string;
  stdin: string;
  clock?: () => Date;
}

/**
 * Which host sent this payload. `.claude/settings.json` is run by Claude Code, VS Code and
 * Copilot CLI alike (its commands name no host), and VS Code also runs `.github/hooks/*.json`:
 * - `hookEventName` (VS Code's camelCase common field beside snake_case tool fields, with a
 *   camelCase `sessionId`: microsoft/vscode `hooksCommandTypes.ts`): VS Code;
 * - `cursor_version`, or `conversation_id` without `session_id`: Cursor (it also runs the
 *   `.claude/settings.json` hooks);
 * - camelCase keys (`toolName`, `toolArgs`, `sessionId`): Copilot CLI;
 * - a `transcript_path` in VS Code's own store (`…/GitHub.copilot-chat/…`): VS Code;
 * - snake_case without any transcript under Copilot CLI (it sets `COPILOT_CLI=1` and sends
 *   none; Claude Code always does): Copilot CLI;
 * - snake_case sent to a Copilot command: VS Code reading Copilot's hooks file;
 * - otherwise the `--host` hint (Claude Code when there is none).
 */
export function detectHost(
  raw: Record<string, unknown>,
  hinted: HostId,
  env: NodeJS.ProcessEnv = {},
): HostId {
  if (typeof raw.hookEventName === 'string' && !('toolName' in raw)) return 'vscode';
  if ('cursor_version' in raw || ('conversation_id' in raw && !('session_id' in raw))) return 'cursor';
  if ('toolName' in raw || 'toolArgs' in raw || ('sessionId' in raw && !('session_id' in raw)))
    return 'copilot';
  const transcript = typeof raw.transcript_path === 'string' ? raw.transcript_path : '';
  if (/[\\/]GitHub\.copilot-chat[\\/]/i.test(transcript)) return 'vscode';
  const snake = 'session_id' in raw || 'tool_name' in raw;
  if (hinted === 'claude' && snake && transcript === '' && env.COPILOT_CLI === '1') return 'copilot';
  return hinted === 'copilot' && snake ? 'vscode' : hinted;
}

/**
 * What runs for one event: the adapter that read the payload, the normalised input, the run's
 * options, and whether the home exists (without one, nothing is created: the session goes on
 * without a packet or capture, and only the gate keeps gating, saying how to fix it).
 */
export type EventHandler = (
  adapter: HostAdapter,
  input: HookInput,
  options: HookRunOptions,
  home: { exists: boolean },
) => Promise<HookResult>;

export type EventHandlers = Partial<Record<HookEvent, EventHandler>>;

/**
 * The hook pipeline with the given handlers: the hook's per-event bundles pass only their own
 * event's handler, so a tool call loads the gate and not the packet renderer.
 */
export async function runHookWith(options: HookRunOptions, handlers: EventHandlers): Promise<HookOutput> {
  const hinted: HostId = options.host && isHostId(options.host) ? options.host : 'claude';
  const handler = isHookEvent(options.event) ? handlers[options.event] : undefined;
  if (!isHookEvent(options.event) || !handler) {
    // A mistyped command is bad usage (exit 2): a silent exit 0 would leave a hook that never runs.
    return {
      stdout: '',
      stderr: `firstlight hook: unknown event "${options.event}": EVENT is one of ${HOOK_EVENTS.join(', ')}`,
      exitCode: 2,
    };
  }
  const event = options.event;
  let raw: Record<string, unknown>;
  try {
    const parsed = JSON.parse(options.stdin || '{}') as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('not a JSON object');
    raw = parsed as Record<string, unknown>;
  } catch (error) {
    return failed(adapterFor(hinted), event, `hook input is not valid JSON (${(error as Error).message})`);
  }
  const adapter = adapterFor(detectHost(raw, hinted, options.env));
  const input = adapter.normalizeHookInput(event, raw);
  try {
    const exists = homeExists(options.home);
    if (!exists && event !== 'pre-tool-use') {
      const fix = `no firstlight home at ${options.home}: run firstlight init --home ${options.home}`;
      return adapter.formatHookOutput(event, { kind: 'none', note: `firstlight hook ${event}: ${fix}` });
    }
    const result = await handler(adapter, input, options, { exists });
    return withNote(adapter.formatHookOutput(event, result), result.note);
  } catch (error) {
    return failed(adapter, event, (error as Error).message);
  }
}

/** The result's note on stderr, whatever its kind (an adapter shows only a `none` note itself). */
function withNote(output: HookOutput, note: string | undefined): HookOutput {
  if (!note || output.stderr?.includes(note)) return output;
  return { ...output, stderr: output.stderr ? `${output.stderr}\n${note}` : note };
}

/** A home has a persona, memories or settings (core's isHome, inlined: the gate stays light). */
function homeExists(home: string): boolean {
  return ['persona', 'memory', 'firstlight.yaml'].some((entry) => existsSync(join(home, entry)));
}

/** Fail closed for the gate; never block a session over our own failure. */
function failed(adapter: HostAdapter, event: HookEvent, why: string): HookOutput {
  const result: HookResult =
    event === 'pre-tool-use' && !('none' in adapter.caps.gate)
      ? { kind: 'deny', reason: `firstlight gate: ${why}. ${callFirst(adapter.caps.toolPrefix)}` }
      : { kind: 'none', note: `firstlight hook ${event}: ${why}` };
  return adapter.formatHookOutput(event, result);
}
