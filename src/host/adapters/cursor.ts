import { join } from 'node:path';
import { SERVER_NAME } from '../hook/own-tools.js';
import type { HostAdapter } from '../types.js';
import { bootstrapBlock, hookEntries, json, normalizeSnakeCase, quiet, str } from './shared.js';

const caps = {
  events: {
    'session-start': 'sessionStart',
    'pre-tool-use': 'preToolUse',
    'post-tool-use': 'postToolUse',
    'post-tool-failure': 'postToolUseFailure',
    stop: 'stop',
    'pre-compact': 'preCompact',
  },
  matchers: {},
  hookStyle: 'cursor',
  hookTimeoutUnit: 's',
  // Its transcript format is undocumented, but every hook input carries `conversation_id`:
  // firstlight's own record is the proof.
  gate: { record: { idField: 'conversation_id' } },
  // preToolUse answers only `permission` and messages (no context before the call: cautions come
  // with the result, postToolUse `additional_context`); `permission: "ask"` asks.
  toolHooks: { preContext: false, ask: true },
  toolPrefix: '',
  scopes: ['project', 'user'],
  pasteBlock: ['project', 'user'],
  mcpKey: 'mcpServers',
  table: {
    mcp: `\`.cursor/mcp.json\` \`mcpServers.${SERVER_NAME}\`; \`~/.cursor/mcp.json\` (user)`,
    instructions:
      '`.cursor/rules/firstlight.mdc` (`alwaysApply: true`, a boolean), `AGENTS.md`; User Rules have no file',
    hooks:
      '`.cursor/hooks.json` `{"version":1,"hooks":{"sessionStart":[{"command"}],"preToolUse":[{"command","failClosed":true}],…}}`; sessionStart and postToolUse output `{"additional_context":…}`; preToolUse deny/ask `{"permission":"deny","user_message","agent_message"}`, gated on the firstlight bootstrap record for `conversation_id`',
  },
  program: {
    commands: ['cursor', 'cursor-agent'],
    install: 'https://cursor.com/downloads (or curl https://cursor.com/install -fsS | bash for cursor-agent)',
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
          toolPrefix: caps.toolPrefix,
        },
        bootstrapBlock(join(ctx.project, 'AGENTS.md')),
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
  manualSteps(scope) {
    const rules =
      'Cursor User Rules live in the app settings and have no file: paste the bootstrap block printed below into Cursor Settings → Rules → User Rules.';
    return scope === 'project'
      ? [
          rules,
          'Cursor runs project hooks only in a trusted workspace: trust this folder, or neither the SessionStart packet nor the tool gate runs (Cursor Settings → Hooks lists what ran).',
        ]
      : [rules];
  },
  normalizeHookInput(event, raw) {
    // `conversation_id` is in every Cursor hook's input (its common schema), so the id the
    // SessionStart packet names is the id the gate looks up, whatever else sessionStart sends.
    const input = normalizeSnakeCase('cursor', event, raw);
    return { ...input, sessionId: str(raw.conversation_id) ?? input.sessionId };
  },
  formatHookOutput(event, result) {
    if (result.kind === 'context') return json({ additional_context: result.text });
    // The reason goes to both: `agent_message` tells the model what to call, `user_message` the user.
    if (result.kind === 'deny' || result.kind === 'ask')
      return json({ permission: result.kind, user_message: result.reason, agent_message: result.reason });
    return quiet(event, result);
  },
};
