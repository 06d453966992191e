/**
 * The hook pipeline: parse stdin, pick the adapter (the payload's shape wins over `--host`:
 * Copilot CLI and VS Code also run the hooks in .claude/settings.json), normalise, run the
 * handler, format. Returns the output; emit.ts writes it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { adapterFor } from '../adapters/index.js';
import { HOOK_EVENTS, type HookEvent, type HostId, isHookEvent, isHostId } from '../ids.js';
import type { HookInput, HookOutput, HookResult, HostAdapter } from '../types.js';
import { loadGateConfig } from './gate-config.js';
import { callFirst, preToolUse } from './pre-tool-use.js';

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

export async function runHook(options: HookRunOptions): Promise<HookOutput> {
  const hinted: HostId = options.host && isHostId(options.host) ? options.host : 'claude';
  if (!isHookEvent(options.event)) {
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
    return adapter.formatHookOutput(event, await handle(adapter, input, options));
  } catch (error) {
    return failed(adapter, event, (error as Error).message);
  }
}

/** A home has a persona, memories or settings (core's isHome, inlined: the gate stays light). */
function homeExists(home: string): boolean {
  return ['persona', 'memory', 'firstlight.yaml'].some((entry) => existsSync(join(home, entry)));
}

async function handle(adapter: HostAdapter, input: HookInput, options: HookRunOptions): Promise<HookResult> {
  if (homeExists(options.home)) return handleIn(adapter, input, options);
  // No home: nothing is created. The session goes on without a packet or capture (fail open);
  // the gate keeps gating (no bootstrap can succeed without a mind) and says how to fix it.
  const fix = `no firstlight home at ${options.home}: run firstlight init --home ${options.home}`;
  if (input.event !== 'pre-tool-use') return { kind: 'none', note: `firstlight hook ${input.event}: ${fix}` };
  // Only the gate: cautions and the event store live in the home, which is not there.
  const result = await gate(adapter, input, options);
  return result.kind === 'deny' ? { kind: 'deny', reason: `${result.reason} (${fix})` } : result;
}

async function handleIn(
  adapter: HostAdapter,
  input: HookInput,
  options: HookRunOptions,
): Promise<HookResult> {
  const clock = options.clock ?? (() => new Date());
  // Hosts whose transcript format is unknown (VS Code, Cursor; Copilot CLI sends none to the
  // gate) are read as Claude Code's, whose hooks they imitate.
  const transcript = 'transcript' in adapter.caps.gate ? adapter.caps.gate.transcript : 'claude';
  switch (input.event) {
    case 'pre-tool-use': {
      const verdict = await gate(adapter, input, options);
      if (verdict.kind === 'deny') return recordDenial(input, verdict, options.home, clock());
      // Cautions fail open: the gate has already decided what must be proven.
      try {
        const { toolCautions } = await import('./tool-cautions.js');
        const cautions = await toolCautions(input, {
          home: options.home,
          now: clock(),
          caps: adapter.caps.toolHooks,
          when: 'pre',
        });
        if (cautions.deny)
          return recordDenial(input, { kind: 'deny', reason: cautions.deny }, options.home, clock());
        if (cautions.ask) return { kind: 'ask', reason: cautions.ask };
        if (cautions.context) return { kind: 'context', text: cautions.context };
      } catch (error) {
        return {
          kind: 'none',
          note: `firstlight hook pre-tool-use: cautions skipped (${(error as Error).message})`,
        };
      }
      return verdict;
    }
    case 'post-tool-use':
    case 'post-tool-failure': {
      const { postToolUse } = await import('./post-tool-use.js');
      return postToolUse(input, { home: options.home, clock, caps: adapter.caps.toolHooks });
    }
    case 'session-start': {
      const { sessionStart } = await import('./session-start.js');
      return sessionStart(input, { home: options.home, projectDir: input.cwd ?? options.cwd, clock });
    }
    case 'stop': {
      const { captureResumption } = await import('./capture.js');
      const captured = await captureResumption(input, { home: options.home, clock, transcript });
      // The session's high-surprise observations no reflect has cited: candidates for the next
      // packet. Never blocks the stop.
      if (input.sessionId) {
        try {
          const { offerSurprises } = await import('../../mind/observation/index.js');
          await offerSurprises(options.home, input.sessionId, clock());
        } catch (error) {
          return {
            kind: 'none',
            note: `firstlight hook stop: surprises not offered (${(error as Error).message})`,
          };
        }
      }
      return captured;
    }
    case 'pre-compact': {
      // Gemini CLI asks before every turn and compacts only past its threshold; its AfterAgent
      // (our stop) has already captured the turn, so an automatic PreCompress is no event.
      if (adapter.caps.autoPreCompactEveryTurn && input.compactTrigger !== 'manual') return { kind: 'none' };
      const { preCompact } = await import('./pre-compact.js');
      return preCompact(input, { home: options.home, clock, transcript });
    }
  }
}

/**
 * A refused call is a tool call too: it goes into the event store (`outcome: denied`), since no
 * PostToolUse follows it. Fails open: the refusal stands whatever the store does.
 */
async function recordDenial(
  input: HookInput,
  result: HookResult & { kind: 'deny' },
  home: string,
  now: Date,
): Promise<HookResult> {
  if (!input.toolName) return result;
  try {
    const { recordDeniedCall } = await import('../../mind/cautions/index.js');
    await recordDeniedCall(
      home,
      {
        host: input.host,
        session: input.sessionId,
        tool: input.toolName,
        args: input.toolInput,
        reason: result.reason,
        toolUseId: input.toolUseId,
      },
      now,
    );
  } catch {
    // observation fails open
  }
  return result;
}

/** The PreToolUse gate: allow, or deny with what the agent must call first. */
async function gate(adapter: HostAdapter, input: HookInput, options: HookRunOptions): Promise<HookResult> {
  const { gate } = adapter.caps;
  // Reached only through a file another host shares (.claude/settings.json) or an older install.
  if ('none' in gate)
    return { kind: 'none', note: `firstlight gate: not enforced on ${adapter.name}: ${gate.none}` };
  const config = await loadGateConfig(options.home, options.env);
  if ('record' in gate) {
    const { recordGate } = await import('./record-gate.js');
    return recordGate(input, {
      config,
      env: options.env,
      home: options.home,
      gate: gate.record,
      toolPrefix: adapter.caps.toolPrefix,
    });
  }
  return preToolUse(input, {
    config,
    env: options.env,
    transcript: gate.transcript,
    home: options.home,
    toolPrefix: adapter.caps.toolPrefix,
  });
}

/** Fail closed for the gate; never block a session over our own failure. */
function failed(adapter: HostAdapter, event: HookEvent, why: string): HookOutput {
  const result: HookResult =
    event === 'pre-tool-use' && !('none' in adapter.caps.gate)
      ? { kind: 'deny', reason: `firstlight gate: ${why}. ${callFirst(adapter.caps.toolPrefix)}` }
      : { kind: 'none', note: `firstlight hook ${event}: ${why}` };
  return adapter.formatHookOutput(event, result);
}
