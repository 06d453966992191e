import { join } from 'node:path';
import { SERVER_NAME } from '../hook/own-tools.js';
import type { HookEvent } from '../ids.js';
import type { HookInput, HostAdapter, InstallContext } from '../types.js';
import { hookEntries, json, normalizeSource, quiet, str } from './shared.js';

const caps = {
  events: { 'session-start': 'sessionStart' },
  matchers: {},
  hookStyle: 'copilot',
  hookTimeoutUnit: 's',
  gate: {
    none: 'Copilot CLI sends no transcript that could prove bootstrap_session ran, and treats a hook deny as an ask (--allow-all-tools approves it)',
  },
  toolPrefix: `${SERVER_NAME}-`,
  scopes: ['project', 'user'],
  pasteBlock: [],
  mcpKey: 'mcpServers',
  table: {
    mcp: `\`~/.copilot/mcp-config.json\` \`mcpServers.${SERVER_NAME}\` (user; honours \`$COPILOT_HOME\`); \`deferTools: "never"\``,
    instructions: '`.github/copilot-instructions.md`, `AGENTS.md`; `~/.copilot/copilot-instructions.md`',
    hooks:
      '`.github/hooks/firstlight.json` `{"version":1,"hooks":{"sessionStart":[{"type":"command","bash","powershell","timeoutSec"}]}}` (no matcher); input camelCase (`toolArgs` a JSON string); output top-level `additionalContext`; no preToolUse gate (no transcript; a deny acts as an ask)',
  },
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
        {
          kind: 'instructions',
          path: join(home, 'copilot-instructions.md'),
          format: 'markdown',
          label: 'bootstrap block',
        },
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
      {
        kind: 'instructions',
        path: join(ctx.project, '.github', 'copilot-instructions.md'),
        format: 'markdown',
        label: 'bootstrap block',
      },
      {
        kind: 'instructions',
        path: join(ctx.project, 'AGENTS.md'),
        format: 'markdown',
        label: 'bootstrap block',
      },
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
  manualSteps(scope) {
    return scope === 'project'
      ? [
          `Copilot CLI reads MCP servers from ~/.copilot/mcp-config.json, a user file: run \`firstlight install copilot --scope user\` to add "${SERVER_NAME}" there.`,
        ]
      : [
          'Copilot CLI may not load ~/.copilot/copilot-instructions.md (github/copilot-cli#2179); the project files cover it.',
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
      lastAssistantMessage: null,
      compactTrigger: str(raw.trigger),
    };
  },
  formatHookOutput(event, result) {
    // No deny: Copilot CLI has no gate (see caps.gate).
    return result.kind === 'context' ? json({ additionalContext: result.text }) : quiet(event, result);
  },
};
