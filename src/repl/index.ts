/**
 * @module repl — the REPL harness: a persistent Python kernel (standard library only, in
 * `kernel/`) with Jupyter semantics, MCP servers as capability objects relayed over their own
 * pipe, native capabilities, and saved states under `<home>/repl/states/`. `replTools(repl)`
 * declares the eight MCP tools as data for `src/servers/`.
 */
export { Repl } from './repl.js';
export type { InstallInput, InstallResult, SaveResult, RestoreResult } from './repl.js';
export { replTools } from './tools.js';
export { StateStore, savedStateSchema } from './state-store.js';
export type { SavedState } from './state-store.js';
export { toPythonIdentifier, pythonNamesFor, splitCommandLine, checkCapabilityName } from './names.js';
export { kernelScript } from './kernel-process.js';
export type { ExecutionResult, ReplState, ReplDeps, ReplSettings, ItemProblem, Progress } from './types.js';
