import { join } from 'node:path';
import { SERVER_NAME, UNPROMPTED_TOOLS } from '../hook/own-tools.js';
import type { HostAdapter, InstallContext, Surface } from '../types.js';
import { bootstrapBlock, formatHookSpecific, hookEntries, hooksLabel, normalizeSnakeCase } from './shared.js';

/** Claude Code's hook events, which every host reading `.claude/settings.json` gets too. */
export const CLAUDE_EVENTS = {
  'session-start': 'SessionStart',
  'pre-tool-use': 'PreToolUse',
  'post-tool-use': 'PostToolUse',
  'post-tool-failure': 'PostToolUseFailure',
  stop: 'Stop',
  'pre-compact': 'PreCompact',
} as const;
export const CLAUDE_MATCHERS = {
  'session-start': 'startup|resume|clear|compact',
  'pre-tool-use': '*',
  'post-tool-use': '*',
  'post-tool-failure': '*',
} as const;

const caps = {
  events: CLAUDE_EVENTS,
  matchers: CLAUDE_MATCHERS,
  hookStyle: 'nested',
  hookTimeoutUnit: 's',
  gate: { transcript: 'claude' },
  toolHooks: { preContext: true, ask: true },
  // Every hook is waited for. Claude Code could run PostToolUse in the background
  // (`"async": true`), but it stops async hooks still running when a `-p` session ends (the last
  // calls' records are lost) and it flushes its transcript on a timer, so the gate could look
  // before a bootstrap_session result is written; waited for, PostToolUse costs 1.2x node -e 0.
  toolPrefix: `mcp__${SERVER_NAME}__`,
  scopes: ['project', 'user'],
  pasteBlock: [],
  mcpKey: 'mcpServers',
  table: {
    mcp: `\`.mcp.json\` \`mcpServers.${SERVER_NAME}\` (project); \`~/.claude.json\` \`mcpServers\` (user); \`alwaysLoad: true\``,
    instructions:
      '`CLAUDE.md` and `AGENTS.md` (Claude reads AGENTS.md only without CLAUDE.md); `~/.claude/CLAUDE.md`',
    hooks:
      '`.claude/settings.json` `hooks.{SessionStart,PreToolUse,PostToolUse,PostToolUseFailure,Stop,PreCompact}`; output `hookSpecificOutput.{additionalContext | permissionDecision}` (PreToolUse and PostToolUse both take `additionalContext`; `permissionDecision: "ask"` asks the user)',
  },
  program: { commands: ['claude'], install: 'npm install -g @anthropic-ai/claude-code' },
} as const satisfies HostAdapter['caps'];

/**
 * The hooks in a `.claude/settings.json`. Claude Code, VS Code and Copilot CLI all run these,
 * so the command names no host (the payload's shape picks it) and every host that installs
 * into the file writes exactly the same entries: installing or uninstalling one of them never
 * changes what another relies on.
 */
export function claudeSettingsHooks(
  path: string,
  ctx: InstallContext,
  label: string,
): Extract<Surface, { kind: 'hooks' }> {
  return { kind: 'hooks', path, style: 'nested', entries: hookEntries(undefined, caps, ctx), label };
}

/**
 * A project's Claude-settings hooks: in `.claude/settings.json`, the file a team commits, when
 * the commands name no path of this machine; else in `.claude/settings.local.json`, which Claude
 * Code (and VS Code) read beside it and never commit, with the shared file cleaned of ours so a
 * switch either way leaves one copy.
 */
export function projectClaudeHooks(ctx: InstallContext): Surface[] {
  const dir = join(ctx.project, '.claude');
  const shared = join(dir, 'settings.json');
  const local = join(dir, 'settings.local.json');
  const cleanup = (path: string, label: string): Surface => ({
    kind: 'hooks',
    path,
    style: 'nested',
    entries: [],
    label,
  });
  if (ctx.portable)
    return [
      claudeSettingsHooks(shared, ctx, hooksLabel(ctx, 'shared')),
      cleanup(local, 'no hooks (they are in .claude/settings.json)'),
    ];
  return [
    { ...claudeSettingsHooks(local, ctx, hooksLabel(ctx, 'local')), local: true },
    cleanup(shared, 'no hooks (they are in .claude/settings.local.json)'),
  ];
}

/**
 * `permissions.allow` for firstlight's startup and read-only tools: in its default permission
 * mode Claude Code asks before any MCP tool, and `-p` sessions cannot answer.
 */
function allowOwnTools(path: string): Surface {
  return {
    kind: 'json-list',
    path,
    keyPath: ['permissions', 'allow'],
    values: UNPROMPTED_TOOLS.map((tool) => `${caps.toolPrefix}${tool}`),
    label: 'permissions.allow (read-only tools)',
  };
}

/** Claude Code: `.mcp.json`, CLAUDE.md + AGENTS.md, `.claude/settings.json` hooks. */
export const claudeAdapter: HostAdapter = {
  id: 'claude',
  name: 'Claude Code',
  caps,
  surfaces(scope, ctx) {
    const entry = { type: 'stdio', command: ctx.server.command, args: ctx.server.args, alwaysLoad: true };
    if (scope === 'user') {
      return [
        bootstrapBlock(join(ctx.userHome, '.claude', 'CLAUDE.md'), caps.toolPrefix),
        {
          kind: 'mcp-json',
          path: join(ctx.userHome, '.claude.json'),
          keyPath: ['mcpServers'],
          entry,
          label: 'MCP server (alwaysLoad)',
        },
        claudeSettingsHooks(join(ctx.userHome, '.claude', 'settings.json'), ctx, 'hooks'),
        allowOwnTools(join(ctx.userHome, '.claude', 'settings.json')),
      ];
    }
    return [
      bootstrapBlock(join(ctx.project, 'CLAUDE.md'), caps.toolPrefix),
      bootstrapBlock(join(ctx.project, 'AGENTS.md')),
      {
        kind: 'mcp-json',
        path: join(ctx.project, '.mcp.json'),
        keyPath: ['mcpServers'],
        entry,
        label: 'MCP server (alwaysLoad)',
      },
      ...projectClaudeHooks(ctx),
      allowOwnTools(join(ctx.project, '.claude', 'settings.json')),
    ];
  },
  manualSteps(scope) {
    return scope === 'project'
      ? [
          `Claude Code asks once to approve the project MCP server in .mcp.json: approve "${SERVER_NAME}".`,
          "Claude Code asks once whether you trust this folder: until you accept, it ignores the project's permissions.allow, so it asks before bootstrap_session (a headless claude -p session cannot answer).",
        ]
      : [];
  },
  normalizeHookInput: (event, raw) => normalizeSnakeCase('claude', event, raw),
  formatHookOutput: (event, result) => formatHookSpecific(event, result, caps.events[event]),
};
