import { join } from 'node:path';
import type { HostAdapter } from '../types.js';
import { formatHookSpecific, hookEntries, normalizeSnakeCase } from './shared.js';

const caps = {
  events: {
    'session-start': 'SessionStart',
    'pre-tool-use': 'PreToolUse',
    stop: 'Stop',
    'pre-compact': 'PreCompact',
  },
  matchers: { 'session-start': 'startup|resume|clear|compact', 'pre-tool-use': '*' },
  hookStyle: 'nested',
  hookTimeoutUnit: 's',
  scopes: ['project', 'user'],
  mcpKey: 'mcpServers',
  table: {
    mcp: '`.mcp.json` `mcpServers.firstlight` (project); `~/.claude.json` `mcpServers` (user); `alwaysLoad: true`',
    instructions:
      '`CLAUDE.md` and `AGENTS.md` (Claude reads AGENTS.md only without CLAUDE.md); `~/.claude/CLAUDE.md`',
    hooks:
      '`.claude/settings.json` `hooks.{SessionStart,PreToolUse,Stop,PreCompact}`; output `hookSpecificOutput.{additionalContext | permissionDecision}`',
  },
} as const satisfies HostAdapter['caps'];

/** Claude Code: `.mcp.json`, CLAUDE.md + AGENTS.md, `.claude/settings.json` hooks. */
export const claudeAdapter: HostAdapter = {
  id: 'claude',
  name: 'Claude Code',
  caps,
  surfaces(scope, ctx) {
    const entry = { type: 'stdio', command: ctx.server.command, args: ctx.server.args, alwaysLoad: true };
    const hooks = hookEntries('claude', caps, ctx);
    if (scope === 'user') {
      return [
        {
          kind: 'instructions',
          path: join(ctx.userHome, '.claude', 'CLAUDE.md'),
          format: 'markdown',
          label: 'bootstrap block',
        },
        {
          kind: 'mcp-json',
          path: join(ctx.userHome, '.claude.json'),
          keyPath: ['mcpServers'],
          entry,
          label: 'MCP server (alwaysLoad)',
        },
        {
          kind: 'hooks',
          path: join(ctx.userHome, '.claude', 'settings.json'),
          style: 'nested',
          entries: hooks,
          label: 'hooks',
        },
      ];
    }
    return [
      {
        kind: 'instructions',
        path: join(ctx.project, 'CLAUDE.md'),
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
        kind: 'mcp-json',
        path: join(ctx.project, '.mcp.json'),
        keyPath: ['mcpServers'],
        entry,
        label: 'MCP server (alwaysLoad)',
      },
      {
        kind: 'hooks',
        path: join(ctx.project, '.claude', 'settings.json'),
        style: 'nested',
        entries: hooks,
        label: 'hooks',
      },
    ];
  },
  manualSteps(scope) {
    return scope === 'project'
      ? ['Claude Code asks once to approve the project MCP server in .mcp.json: approve "firstlight".']
      : [];
  },
  normalizeHookInput: (event, raw) => normalizeSnakeCase('claude', event, raw),
  formatHookOutput: (event, result) => formatHookSpecific(event, result, caps.events[event]),
};
