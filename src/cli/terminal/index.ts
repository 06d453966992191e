/**
 * @module cli/terminal — the terminal REPL (`firstlight repl`): the prompt, cells, history and
 * results on the same harness as the MCP server.
 */
export { cellComplete } from './cell-input.js';
export { appendHistory, HISTORY_LINES, loadHistory } from './history.js';
export type { TerminalOptions } from './session.js';
export { runTerminalRepl } from './session.js';
export { pythonText, showResult } from './show.js';
