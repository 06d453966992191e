import { join } from 'node:path';
import { SERVER_NAME } from '../hook/own-tools.js';
import type { HostAdapter } from '../types.js';
import { hookEntries, json, normalizeSnakeCase, quiet, str } from './shared.js';

const caps = {
  events: {
    'session-start': 'SessionStart',
    'pre-tool-use': 'BeforeTool',
    'post-tool-use': 'AfterTool',
    stop: 'AfterAgent',
    'pre-compact': 'PreCompress',
  },
  matchers: {},
  hookStyle: 'nested',
  hookTimeoutUnit: 'ms',
  gate: { transcript: 'gemini' },
  // BeforeTool output has no context field the CLI reads (only AfterTool's is appended to the
  // tool result, in <hook_context>); `decision: "ask"` forces a confirmation.
  toolHooks: { preContext: false, ask: true },
  toolPrefix: `mcp_${SERVER_NAME}_`,
  autoPreCompactEveryTurn: true,
  scopes: ['project', 'user'],
  pasteBlock: [],
  mcpKey: 'mcpServers',
  table: {
    mcp: `\`.gemini/settings.json\` \`mcpServers.${SERVER_NAME}\`; \`~/.gemini/settings.json\` (user)`,
    instructions: '`GEMINI.md`, `~/.gemini/GEMINI.md`',
    hooks:
      'settings `hooks.{SessionStart,BeforeTool,AfterTool,AfterAgent,PreCompress}` (`timeout` in milliseconds); SessionStart and AfterTool `hookSpecificOutput.additionalContext`; BeforeTool `{"decision":"deny"|"ask","reason"}` (no context before the call: cautions come with the result)',
  },
  program: { commands: ['gemini'], install: 'npm install -g @google/gemini-cli' },
} as const satisfies HostAdapter['caps'];

/** Gemini CLI: `settings.json` holds both `mcpServers` and `hooks`; GEMINI.md. */
export const geminiAdapter: HostAdapter = {
  id: 'gemini',
  name: 'Gemini CLI',
  caps,
  surfaces(scope, ctx) {
    const base = scope === 'user' ? join(ctx.userHome, '.gemini') : join(ctx.project, '.gemini');
    const instructions = scope === 'user' ? join(base, 'GEMINI.md') : join(ctx.project, 'GEMINI.md');
    const settings = join(base, 'settings.json');
    return [
      {
        kind: 'instructions',
        path: instructions,
        format: 'markdown',
        label: 'bootstrap block',
        toolPrefix: caps.toolPrefix,
      },
      {
        kind: 'mcp-json',
        path: settings,
        keyPath: ['mcpServers'],
        entry: { command: ctx.server.command, args: ctx.server.args },
        label: 'MCP server',
      },
      {
        kind: 'hooks',
        path: settings,
        style: 'nested',
        entries: hookEntries('gemini', caps, ctx),
        label: 'hooks',
      },
    ];
  },
  manualSteps() {
    return [];
  },
  normalizeHookInput(event, raw) {
    const input = normalizeSnakeCase('gemini', event, raw);
    // AfterAgent (our stop) carries the turn's final text as `prompt_response`.
    return { ...input, lastAssistantMessage: input.lastAssistantMessage ?? str(raw.prompt_response) };
  },
  formatHookOutput(event, result) {
    if (result.kind === 'context') {
      const hookEventName = caps.events[event as 'session-start' | 'post-tool-use'] ?? 'SessionStart';
      return json({ hookSpecificOutput: { hookEventName, additionalContext: result.text } });
    }
    if (result.kind === 'deny') return json({ decision: 'deny', reason: result.reason });
    // The CLI shows `systemMessage` in its confirmation; `reason` is what a deny would say.
    if (result.kind === 'ask')
      return json({ decision: 'ask', reason: result.reason, systemMessage: result.reason });
    return quiet(event, result);
  },
};
