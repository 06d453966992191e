import { join } from 'node:path';
import { SERVER_NAME } from '../hook/own-tools.js';
import type { HostAdapter, InstallContext } from '../types.js';
import { formatHookSpecific, hookEntries, normalizeSnakeCase } from './shared.js';

const caps = {
  events: {
    'session-start': 'SessionStart',
    'pre-tool-use': 'PreToolUse',
    'post-tool-use': 'PostToolUse',
    stop: 'Stop',
  },
  matchers: {},
  hookStyle: 'nested',
  hookTimeoutUnit: 's',
  gate: { transcript: 'codex' },
  // PreToolUse and PostToolUse take `additionalContext`; `permissionDecision: "ask"` is refused
  // ("unsupported permissionDecision:ask" in 0.169).
  toolHooks: { preContext: true, ask: false },
  toolPrefix: `mcp__${SERVER_NAME}__`,
  scopes: ['project', 'user'],
  pasteBlock: [],
  mcpKey: 'mcp_servers',
  table: {
    mcp: `\`.codex/config.toml\` (trusted projects) or \`~/.codex/config.toml\` \`[mcp_servers.${SERVER_NAME}]\`; \`[features] hooks = true\``,
    instructions: '`AGENTS.md`, `~/.codex/AGENTS.md`',
    hooks:
      '`.codex/hooks.json` / `~/.codex/hooks.json`, Claude-style, `timeout` in seconds; SessionStart `hookSpecificOutput.additionalContext`; PreToolUse (Bash) gated on the rollout transcript; PreToolUse/PostToolUse `hookSpecificOutput.additionalContext` (no ask decision)',
  },
  program: { commands: ['codex'], install: 'npm install -g @openai/codex' },
} as const satisfies HostAdapter['caps'];

function codexHome(ctx: InstallContext): string {
  return ctx.env.CODEX_HOME ?? join(ctx.userHome, '.codex');
}

/** Codex CLI: TOML `[mcp_servers.firstlight]`, AGENTS.md, Claude-style `hooks.json`. */
export const codexAdapter: HostAdapter = {
  id: 'codex',
  name: 'Codex CLI',
  caps,
  surfaces(scope, ctx) {
    const base = scope === 'user' ? codexHome(ctx) : join(ctx.project, '.codex');
    const agents = scope === 'user' ? join(base, 'AGENTS.md') : join(ctx.project, 'AGENTS.md');
    return [
      {
        kind: 'instructions',
        path: agents,
        format: 'markdown',
        label: 'bootstrap block',
        // The project's AGENTS.md is read by several hosts; ~/.codex/AGENTS.md by Codex alone.
        ...(scope === 'user' ? { toolPrefix: caps.toolPrefix } : {}),
      },
      {
        kind: 'mcp-toml',
        path: join(base, 'config.toml'),
        entry: { command: ctx.server.command, args: ctx.server.args },
        features: ['hooks'],
        // Codex 0.169 still reads `codex_hooks` but warns on every run that it is deprecated.
        renamedFeatures: { codex_hooks: 'hooks' },
        label: 'MCP server + hooks feature',
      },
      {
        kind: 'hooks',
        path: join(base, 'hooks.json'),
        style: 'nested',
        entries: hookEntries('codex', caps, ctx),
        label: 'hooks',
      },
    ];
  },
  manualSteps(scope) {
    const trustHooks =
      "Codex skips a new or changed hook until you trust it: open /hooks in Codex and trust firstlight's (a headless `codex exec` can pass --dangerously-bypass-hook-trust instead); `firstlight doctor` says which are trusted.";
    return scope === 'project'
      ? [
          'Codex reads .codex/config.toml and .codex/hooks.json only in trusted projects: trust this project in Codex, or run `firstlight install codex --scope user`.',
          trustHooks,
        ]
      : [trustHooks];
  },
  // Loaded on demand: the hook entry imports every adapter and must stay light.
  async hookTrust(scope, ctx) {
    const { codexHookTrust } = await import('./codex-trust.js');
    const base = scope === 'user' ? codexHome(ctx) : join(ctx.project, '.codex');
    return codexHookTrust({
      hooksPath: join(base, 'hooks.json'),
      codexHome: codexHome(ctx),
      ...(scope === 'project' ? { project: ctx.project } : {}),
    });
  },
  normalizeHookInput: (event, raw) => normalizeSnakeCase('codex', event, raw),
  formatHookOutput: (event, result) =>
    formatHookSpecific(event, result, caps.events[event as 'stop'] ?? event),
};
