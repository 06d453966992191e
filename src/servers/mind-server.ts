import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from '../core/index.js';
import { BOOTSTRAP_RULE } from '../mind/index.js';
import type { Firstlight } from './compose.js';
import { registerTools } from './register.js';
import { registerPrompts, registerResources } from './register-content.js';
import { packageVersion } from './version.js';

/**
 * Server instructions, under 2 KB with the bootstrap rule first. Hosts often drop them (that is
 * why the same rule is in tool descriptions, host files and hook output), but when they do
 * arrive they must say the one thing that matters.
 */
export const MIND_INSTRUCTIONS = [
  BOOTSTRAP_RULE,
  'If mind_contract_available is false, say the mind is degraded and do not impersonate the persona. If bootstrap_session is missing, call get_system_prompt(), context(), then list_memory_files().',
  'Per turn: observe(tool_name, args, expected) before and observe(..., result) after external tool calls; reflect(observation, kind) for user feedback and other non-tool signals; recall(query) when memory is relevant; remember() what should last; internalize(stream_tail, anchors) before the session ends.',
  'These instructions are not reliably shown to models by hosts; firstlight also puts this rule in host instruction files and SessionStart hook output.',
].join('\n\n');

export interface MindServerDeps {
  /** The process's parts (createFirstlight); every server over it shares them. */
  firstlight: Firstlight;
  log: Logger;
  /** Keys the session ledger when the client passes no session id (one per connection). */
  sessionKey?: string;
}

/** A fresh `firstlight` MCP server over the shared parts (one per stdio process or HTTP session). */
export function createMindServer(deps: MindServerDeps): McpServer {
  const server = new McpServer(
    { name: 'firstlight', title: 'firstlight mind', version: packageVersion() },
    { instructions: MIND_INSTRUCTIONS, capabilities: { logging: {} } },
  );
  const connection = { sessionKey: deps.sessionKey ?? `connection-${randomUUID()}`, connectedAt: new Date() };
  const { firstlight } = deps;
  registerTools(server, firstlight.tools(connection), deps.log);
  registerResources(server, firstlight.resources, deps.log);
  registerPrompts(server, firstlight.prompts, deps.log);
  // Load memory and the contract while the host finishes starting up, not in the first call.
  server.server.oninitialized = () => setImmediate(() => void firstlight.mind.warm());
  return server;
}
