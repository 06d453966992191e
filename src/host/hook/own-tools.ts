/**
 * firstlight's own MCP tools as each host names them, for the gate: they are never gated, and
 * only our `bootstrap_session` proves bootstrap. Matching any server's `…bootstrap_session`
 * would let `mcp__evil__send_bootstrap_session` through, so a name counts only when it is our
 * server's prefix plus one of our tool names. Kept here as data (the gate must not load the
 * mind to read its tool list); a unit test pins it to the server's registered tools.
 */

/** The server name install writes into every host's config. */
export const SERVER_NAME = 'firstlight';

/** The mind server's tools. */
export const OWN_TOOLS: readonly string[] = [
  'bootstrap_session',
  'context',
  'expand_reference',
  'get_system_prompt',
  'get_taskspace',
  'internalize',
  'list_memory_files',
  'observe',
  'read_memory_file',
  'recall',
  'reflect',
  'remember',
  'update_taskspace',
];

/**
 * How hosts prefix a server's tools: `mcp__firstlight__` (Claude Code, Codex, Gemini CLI's
 * docs), `firstlight__` (older Codex; Gemini CLI on a name clash), `mcp_firstlight_` (current
 * Gemini CLI, VS Code), `firstlight-` (Copilot CLI: `<server>-<tool>`).
 */
const PREFIXES = [`mcp__${SERVER_NAME}__`, `${SERVER_NAME}__`, `mcp_${SERVER_NAME}_`, `${SERVER_NAME}-`];

/** Our bare tool name when `name` is one of our tools under one of our prefixes, else null. */
export function ownTool(name: string): string | null {
  for (const prefix of PREFIXES) {
    if (!name.startsWith(prefix)) continue;
    const tool = name.slice(prefix.length);
    if (OWN_TOOLS.includes(tool)) return tool;
  }
  return null;
}

/**
 * A tool call a transcript recorded is our `bootstrap_session`: by our prefix, or by its bare
 * name where the host recorded our server beside it (a Codex namespace `mcp__firstlight`,
 * Gemini CLI's display name `bootstrap_session (firstlight MCP Server)`). Another server's
 * `bootstrap_session` proves nothing.
 */
export function isOwnBootstrap(call: { name: string; server: string | null }): boolean {
  if (ownTool(call.name) === 'bootstrap_session') return true;
  return call.name === 'bootstrap_session' && call.server === SERVER_NAME;
}
