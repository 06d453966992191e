import { join } from 'node:path';
import { SERVER_NAME } from '../hook/own-tools.js';
import type { HostAdapter, InstallContext } from '../types.js';
import { CLAUDE_EVENTS, CLAUDE_MATCHERS, projectClaudeHooks } from './claude.js';
import { bootstrapBlock, formatHookSpecific, normalizeSnakeCase } from './shared.js';

/** VS Code runs the hooks in `.claude/settings.json`: Claude's events, written once for both. */
const caps = {
  events: CLAUDE_EVENTS,
  matchers: CLAUDE_MATCHERS,
  hookStyle: 'nested',
  hookTimeoutUnit: 's',
  // Its transcript is its own format and not a stable hook API (microsoft/vscode#300583), but
  // every hook input carries `sessionId`: firstlight's own record is the proof.
  gate: { record: { idField: 'sessionId' } },
  toolHooks: { preContext: true, ask: true },
  toolPrefix: `mcp_${SERVER_NAME}_`,
  scopes: ['project', 'user'],
  pasteBlock: ['user'],
  mcpKey: 'servers',
  table: {
    mcp: `\`.vscode/mcp.json\` \`servers.${SERVER_NAME}\` (the root key is \`servers\`); user profile \`mcp.json\``,
    instructions: '`.github/copilot-instructions.md`, `AGENTS.md`',
    hooks:
      'runs the `.claude/settings.json` hooks (the same host-neutral entries Claude Code gets); input has camelCase `sessionId` and `hookEventName` beside snake_case `tool_name`/`tool_input`; PreToolUse deny `hookSpecificOutput.permissionDecision`, gated on the firstlight bootstrap record for `sessionId`',
  },
  program: {
    commands: ['code', 'code-insiders', 'codium'],
    install: 'https://code.visualstudio.com/download, then "Shell Command: Install code command in PATH"',
  },
} as const satisfies HostAdapter['caps'];

/** The VS Code user profile directory holding `mcp.json`. */
function userProfileDir(ctx: InstallContext): string {
  if (ctx.platform === 'darwin') return join(ctx.userHome, 'Library', 'Application Support', 'Code', 'User');
  if (ctx.platform === 'win32')
    return join(ctx.env.APPDATA ?? join(ctx.userHome, 'AppData', 'Roaming'), 'Code', 'User');
  return join(ctx.env.XDG_CONFIG_HOME ?? join(ctx.userHome, '.config'), 'Code', 'User');
}

/** VS Code (Copilot agent mode): `.vscode/mcp.json` `servers`, Copilot instruction files, Claude-style hooks. */
export const vscodeAdapter: HostAdapter = {
  id: 'vscode',
  name: 'VS Code',
  caps,
  surfaces(scope, ctx) {
    const entry = { type: 'stdio', command: ctx.server.command, args: ctx.server.args };
    if (scope === 'user') {
      return [
        {
          kind: 'mcp-json',
          path: join(userProfileDir(ctx), 'mcp.json'),
          keyPath: ['servers'],
          entry,
          label: 'MCP server',
        },
      ];
    }
    return [
      bootstrapBlock(join(ctx.project, '.github', 'copilot-instructions.md')),
      bootstrapBlock(join(ctx.project, 'AGENTS.md')),
      {
        kind: 'mcp-json',
        path: join(ctx.project, '.vscode', 'mcp.json'),
        keyPath: ['servers'],
        entry,
        label: 'MCP server',
      },
      // VS Code reads Claude Code's settings files, the local one too.
      ...projectClaudeHooks(ctx),
    ];
  },
  manualSteps(scope) {
    return scope === 'user'
      ? [
          'VS Code has no user-level instruction file firstlight can write: keep the project files, or paste the bootstrap block printed below into your VS Code user instructions.',
        ]
      : [
          `VS Code starts MCP servers on demand: open the Chat view, pick Agent mode, and trust "${SERVER_NAME}" when asked.`,
          'VS Code agent hooks are a preview your organization can turn off, and `chat.hookFilesLocations` must keep `.claude/settings.json`: without them there is no SessionStart packet and no tool gate (the "GitHub Copilot Chat Hooks" output channel shows what ran).',
        ];
  },
  normalizeHookInput: (event, raw) => normalizeSnakeCase('vscode', event, raw),
  formatHookOutput: (event, result) => formatHookSpecific(event, result, caps.events[event]),
};
