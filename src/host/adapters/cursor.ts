import { join } from 'node:path';
import { SERVER_NAME } from '../hook/own-tools.js';
import type { HostAdapter } from '../types.js';
import { hookEntries, json, normalizeSnakeCase, quiet } from './shared.js';

const caps = {
  events: { 'session-start': 'sessionStart', stop: 'stop', 'pre-compact': 'preCompact' },
  matchers: {},
  hookStyle: 'cursor',
  hookTimeoutUnit: 's',
  gate: {
    none: "Cursor's transcript format is undocumented: nothing can prove bootstrap_session ran",
  },
  toolPrefix: '',
  scopes: ['project', 'user'],
  pasteBlock: ['project', 'user'],
  mcpKey: 'mcpServers',
  table: {
    mcp: `\`.cursor/mcp.json\` \`mcpServers.${SERVER_NAME}\`; \`~/.cursor/mcp.json\` (user)`,
    instructions:
      '`.cursor/rules/firstlight.mdc` (`alwaysApply: true`, a boolean), `AGENTS.md`; User Rules have no file',
    hooks:
      '`.cursor/hooks.json` `{"version":1,"hooks":{"sessionStart":[{"command"}],…}}`; sessionStart output `{"additional_context":…}`; no preToolUse gate (transcript format undocumented)',
  },
} as const satisfies HostAdapter['caps'];

/** Cursor: `.cursor/mcp.json`, an always-applied rule file + AGENTS.md, `.cursor/hooks.json`. */
export const cursorAdapter: HostAdapter = {
  id: 'cursor',
  name: 'Cursor',
  caps,
  surfaces(scope, ctx) {
    const entry = { command: ctx.server.command, args: ctx.server.args };
    const base = scope === 'user' ? join(ctx.userHome, '.cursor') : join(ctx.project, '.cursor');
    const files: ReturnType<HostAdapter['surfaces']> = [];
    if (scope === 'project') {
      files.push(
        {
          kind: 'instructions',
          path: join(base, 'rules', 'firstlight.mdc'),
          format: 'cursor-rule',
          label: 'always-applied rule',
        },
        {
          kind: 'instructions',
          path: join(ctx.project, 'AGENTS.md'),
          format: 'markdown',
          label: 'bootstrap block',
        },
      );
    }
    files.push(
      { kind: 'mcp-json', path: join(base, 'mcp.json'), keyPath: ['mcpServers'], entry, label: 'MCP server' },
      {
        kind: 'hooks',
        path: join(base, 'hooks.json'),
        style: 'cursor',
        entries: hookEntries('cursor', caps, ctx),
        label: 'hooks',
      },
    );
    return files;
  },
  manualSteps() {
    return [
      'Cursor User Rules live in the app settings and have no file: paste the bootstrap block printed below into Cursor Settings → Rules → User Rules.',
    ];
  },
  normalizeHookInput: (event, raw) => normalizeSnakeCase('cursor', event, raw),
  formatHookOutput(event, result) {
    // No deny: Cursor has no gate (see caps.gate).
    return result.kind === 'context' ? json({ additional_context: result.text }) : quiet(event, result);
  },
};
