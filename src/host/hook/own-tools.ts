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
  'forget_memory',
  'get_system_prompt',
  'get_taskspace',
  'internalize',
  'list_memory_files',
  'observe',
  'read_memory_file',
  'recall',
  'reflect',
  'remember',
  'restore_memory',
  'update_taskspace',
];

/**
 * The tools a host may run without asking: the startup call (it records a session start and
 * nothing else; a host that asks first leaves a headless session unable to bootstrap and so
 * gated for good) and the tools that only read the mind.
 */
export const UNPROMPTED_TOOLS: readonly string[] = [
  'bootstrap_session',
  'get_system_prompt',
  'context',
  'list_memory_files',
  'read_memory_file',
  'recall',
  'expand_reference',
  'get_taskspace',
];

/**
 * How hosts prefix a server's tools: `mcp__firstlight__` (Claude Code, Codex, Gemini CLI's
 * docs), `firstlight__` (older Codex; Gemini CLI on a name clash), `mcp_firstlight_` (current
 * Gemini CLI, VS Code), `firstlight-` (Copilot CLI: `<server>-<tool>`).
 */
const PREFIXES = [`mcp__${SERVER_NAME}__`, `${SERVER_NAME}__`, `mcp_${SERVER_NAME}_`, `${SERVER_NAME}-`];

/**
 * The tools whose successful result proves the agent read its mind: `bootstrap_session`, and
 * the legacy `get_system_prompt` (the older three-call ritual starts with it).
 */
export const PROOF_TOOLS = ['bootstrap_session', 'get_system_prompt'] as const;
export type ProofTool = (typeof PROOF_TOOLS)[number];

/**
 * What `get_system_prompt` returns when the contract failed to assemble (the mind's
 * CONTRACT_ERROR_PREFIX; a unit test keeps the two equal, the gate must not load the mind).
 */
export const CONTRACT_ERROR_PREFIX = 'ERROR: firstlight mind contract failed to assemble:';

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
 * Which proof tool of ours a transcript's call is, or null: by our prefix, or by its bare name
 * where the host recorded our server beside it (a Codex namespace `mcp__firstlight`, Gemini
 * CLI's display name `bootstrap_session (firstlight MCP Server)`). Another server's
 * `bootstrap_session` proves nothing.
 */
export function ownProofTool(call: { name: string; server: string | null }): ProofTool | null {
  const tool = ownTool(call.name) ?? (call.server === SERVER_NAME ? call.name : null);
  return (PROOF_TOOLS as readonly string[]).includes(tool ?? '') ? (tool as ProofTool) : null;
}
