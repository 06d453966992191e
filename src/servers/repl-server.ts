import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Logger } from '../core/index.js';
import { type Repl, replTools } from '../repl/index.js';
import { registerTools } from './register.js';
import { packageVersion } from './version.js';

/** Short: hosts often drop instructions, so the tool descriptions carry the same facts. */
export const REPL_INSTRUCTIONS = [
  'A persistent Python REPL. execute(code) runs Python; the namespace, functions and classes persist between calls and across restarts (auto-saved on shutdown).',
  'install_capability(name, command | server_command, args?, env?, cwd?) starts an MCP server and turns its tools into methods of a Python object: fs.read_text_file(path="a.txt"). Backend errors raise CapabilityError.',
  'register_capability(obj) adds your own capability (needs `name` and `describe()`). state() shows what is defined; save_state/restore_state keep named snapshots; reset() clears all but capabilities.',
].join('\n\n');

export interface ReplServerDeps {
  repl: Repl;
  log: Logger;
}

/** The `firstlight-repl` MCP server over one harness (one per process: the kernel is shared). */
export function createReplServer(deps: ReplServerDeps): McpServer {
  const server = new McpServer(
    { name: 'firstlight-repl', title: 'firstlight REPL harness', version: packageVersion() },
    { instructions: REPL_INSTRUCTIONS },
  );
  registerTools(server, replTools(deps.repl), deps.log);
  return server;
}
