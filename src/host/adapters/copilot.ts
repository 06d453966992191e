import { join } from 'node:path';
import { SERVER_NAME } from '../hook/own-tools.js';
import type { HookEvent } from '../ids.js';
import type { HookInput, HostAdapter, InstallContext } from '../types.js';
import { bootstrapBlock, hookEntries, json, normalizeSource, quiet, str, toolErrorOf } from './shared.js';

const caps = {
  events: {
    'session-start': 'sessionStart',
    'pre-tool-use': 'preToolUse',
    'post-tool-use': 'postToolUse',
    'post-tool-failure': 'postToolUseFailure',
    stop: 'agentStop',
  },
  matchers: {},
  hookStyle: 'copilot',
  hookTimeoutUnit: 's',
  // preToolUse carries `sessionId` but no transcript: firstlight's own record is the proof.
  gate: {
    record: {
      idField: 'sessionId',
      caveat:
        'Copilot CLI documents a preToolUse deny as blocking; some versions treated it as an ask that --allow-all-tools / --yolo approves',
    },
  },
  // agentStop's `transcriptPath`: ~/.copilot/session-state/<session>/events.jsonl.
  transcript: 'copilot',
  toolPrefix: `${SERVER_NAME}-`,
  // preToolUse and postToolUse(Failure) take a top-level `additionalContext` (changelog 1.0.24,
  // 1.0.49, 1.0.51); `permissionDecision: "ask"` prompts (autopilot denies it).
  toolHooks: { preContext: true, ask: true },
  scopes: ['project', 'user'],
  pasteBlock: [],
  mcpKey: 'mcpServers',
  table: {
    mcp: `\`~/.copilot/mcp-config.json\` \`mcpServers.${SERVER_NAME}\` (user; honours \`$COPILOT_HOME\`); \`deferTools: "never"\``,
    instructions: '`.github/copilot-instructions.md`, `AGENTS.md`; `~/.copilot/copilot-instructions.md`',
    hooks:
      '`.github/hooks/firstlight.json` `{"version":1,"hooks":{"sessionStart":[…],"preToolUse":[{"type":"command","bash","powershell","timeoutSec"}]}}` (no matcher); input camelCase (`sessionId`, `toolName`, `toolArgs` a JSON string); sessionStart, preToolUse and postToolUse(Failure) output top-level `additionalContext`; agentStop sends `transcriptPath` (`~/.copilot/session-state/<id>/events.jsonl`), the last words captured from it; preToolUse deny/ask `{"permissionDecision","permissionDecisionReason"}`, gated on the firstlight bootstrap record for `sessionId`',
  },
  program: { commands: ['copilot'], install: 'npm install -g @github/copilot' },
} as const satisfies HostAdapter['caps'];

function copilotHome(ctx: InstallContext): string {
  return ctx.env.COPILOT_HOME ?? join(ctx.userHome, '.copilot');
}

/** Copilot's `toolArgs` arrives as a JSON string; an unparsable one is kept as the raw string. */
function parseToolArgs(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? null;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** Copilot CLI: global MCP config, Copilot instruction files, `.github/hooks/*.json`. */
export const copilotAdapter: HostAdapter = {
  id: 'copilot',
  name: 'Copilot CLI',
  caps,
  surfaces(scope, ctx) {
    const home = copilotHome(ctx);
    const entry = {
      type: 'local',
      command: ctx.server.command,
      args: ctx.server.args,
      tools: ['*'],
      deferTools: 'never',
    };
    if (scope === 'user') {
      return [
        bootstrapBlock(join(home, 'copilot-instructions.md'), caps.toolPrefix),
        {
          kind: 'mcp-json',
          path: join(home, 'mcp-config.json'),
          keyPath: ['mcpServers'],
          entry,
          label: 'MCP server (deferTools: never)',
        },
      ];
    }
    return [
      bootstrapBlock(join(ctx.project, '.github', 'copilot-instructions.md')),
      bootstrapBlock(join(ctx.project, 'AGENTS.md')),
      {
        kind: 'hooks',
        path: join(ctx.project, '.github', 'hooks', 'firstlight.json'),
        style: 'copilot',
        entries: hookEntries('copilot', caps, ctx),
        label: 'hooks',
      },
      {
        kind: 'mcp-json',
        path: join(home, 'mcp-config.json'),
        keyPath: ['mcpServers'],
        entry,
        label: 'MCP server (user file; doctor reads it)',
        readOnly: {
          hint: 'Copilot CLI reads MCP servers only from this user file: run `firstlight install copilot --scope user`',
        },
      },
    ];
  },
  async hookTrust(scope, ctx) {
    // User-scope installs write no hooks; the project's hooks need the folder trusted.
    // Loaded on demand: the hook entry imports every adapter and must stay light.
    const { copilotHookTrust } = await import('./copilot-trust.js');
    return copilotHookTrust(scope, ctx.project, copilotHome(ctx));
  },
  manualSteps(scope) {
    return scope === 'project'
      ? [
          'Copilot CLI runs .github/hooks (packet, gate) only in a folder you trust: run `copilot` here once and trust it.',
          `Copilot CLI reads MCP servers from ~/.copilot/mcp-config.json, a user file: run \`firstlight install copilot --scope user\` to add "${SERVER_NAME}" there.`,
        ]
      : [
          'Copilot CLI may not load ~/.copilot/copilot-instructions.md (github/copilot-cli#2179); the project files cover it.',
          'The SessionStart packet and the tool gate are project hooks (.github/hooks/firstlight.json): run `firstlight install copilot` in each project you want gated.',
        ];
  },
  normalizeHookInput(event: HookEvent, raw): HookInput {
    return {
      host: 'copilot',
      event,
      sessionId: str(raw.sessionId) ?? str(raw.session_id),
      transcriptPath: str(raw.transcriptPath) ?? str(raw.transcript_path),
      cwd: str(raw.cwd),
      source: normalizeSource(raw.source),
      toolName: str(raw.toolName) ?? str(raw.tool_name),
      toolInput: parseToolArgs(raw.toolArgs ?? raw.tool_input),
      mcpServer: null,
      mcpTool: null,
      lastAssistantMessage: null,
      // agentStop can run before the turn's last events reach events.jsonl (seen on a loaded
      // machine with 1.0.102: the capture read the turn before); its `hook.start` event there
      // carries this payload, timestamp and all, and is written after them.
      ...(typeof raw.timestamp === 'number' && event === 'stop'
        ? { transcriptMark: `"timestamp":${raw.timestamp}` }
        : {}),
      compactTrigger: str(raw.trigger),
      toolResponse: raw.toolResult ?? raw.tool_result ?? null,
      toolError: toolErrorOf(raw.error, raw.toolResult ?? raw.tool_result),
      durationMs: null,
      toolUseId: str(raw.toolCallId) ?? str(raw.tool_use_id),
    };
  },
  formatHookOutput(event, result) {
    if (result.kind === 'context') return json({ additionalContext: result.text });
    if (result.kind === 'deny' || result.kind === 'ask') {
      // Top level for the camelCase `preToolUse` hook (the CLI hooks reference); the same
      // decision inside `hookSpecificOutput` for the PascalCase, VS Code-compatible form Copilot
      // CLI uses when it runs the `.claude/settings.json` hooks. Each reader ignores the other.
      const decision = { permissionDecision: result.kind, permissionDecisionReason: result.reason };
      return json({ ...decision, hookSpecificOutput: { hookEventName: 'PreToolUse', ...decision } });
    }
    return quiet(event, result);
  },
};
