/**
 * @module repl — the REPL harness: a persistent Python kernel (standard library only, in
 * `kernel/`) with Jupyter semantics, MCP servers as capability objects relayed over their own
 * pipe, native capabilities, and saved states under `<home>/repl/states/`. `replTools(repl)`
 * declares the eight MCP tools as data for `src/servers/`.
 */

export type { KernelKind } from './kernel-process.js';
export { kernelScript } from './kernel-process.js';
export { kernelPython } from './kernel-python.js';
export { checkCapabilityName, pythonNamesFor, splitCommandLine, toPythonIdentifier } from './names.js';
export { autosaveNameFor, Repl } from './repl.js';
export type { InstallInput } from './server-spec.js';
export type { SavedState } from './state-store.js';
export { StateStore, savedStateSchema } from './state-store.js';
export { REPL_TOOL_NAMES, replTools } from './tools.js';
export type {
  ExecutionResult,
  InstallResult,
  ItemProblem,
  Progress,
  ReplDeps,
  ReplSettings,
  ReplState,
  RestoreResult,
  SaveResult,
} from './types.js';
