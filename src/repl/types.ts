import type { Logger, Settings } from '../core/index.js';

/** The REPL section of the settings. */
export type ReplSettings = Settings['repl'];

/** What a harness needs from its caller; nothing is read from the process ambiently. */
export interface ReplDeps {
  home: string;
  log: Logger;
  settings: ReplSettings;
  /** Working directory of the kernel and the base for relative capability `cwd`s. */
  cwd: string;
  /** Environment of the kernel (backends get a minimal one plus their own `env`). */
  env: NodeJS.ProcessEnv;
  /** The interpreter to run, when resolved already (see `kernelPython`); else `settings.python`. */
  python?: string;
  clock?: () => Date;
  /**
   * The state saved at shutdown and restored at start (default `autosave`); the CLI names one
   * per project (autosaveNameFor), so one project's capabilities never come back in another.
   */
  autosave?: string;
}

/** The seed's ExecutionResult, plus the Jupyter execution counter. */
export interface ExecutionResult {
  success: boolean;
  stdout: string;
  stderr: string;
  return_value: unknown;
  error_type: string | null;
  error_message: string | null;
  execution_count: number;
  /** Python's repr of the value, when the caller asked for it (`repl exec` prints it, as Jupyter does). */
  repr?: string;
}

/** The seed's REPLState, plus the execution counter. */
export interface ReplState {
  defined_functions: { name: string; signature: string; docstring: string | null }[];
  variables: Record<string, string>;
  capabilities: string[];
  history_length: number;
  execution_count: number;
}

/** One item that could not be saved or restored, and why. */
export interface ItemProblem {
  name: string;
  kind: string;
  reason: string;
}

/** A tool of a relay capability as the kernel sees it. */
export interface KernelTool {
  name: string;
  pyname: string;
  description: string;
  input_schema: unknown;
}

/** Progress reporter handed down from the MCP request; absent when the client asked for none. */
export type Progress = (progress: number, total?: number, message?: string) => Promise<void>;

/** The result of `install_capability`. */
export interface InstallResult {
  name: string;
  methods: string[];
  description: string;
  message: string;
}

/** The result of `save_state`. */
export interface SaveResult {
  name: string;
  file: string;
  saved: {
    capabilities: number;
    native_capabilities: number;
    functions: number;
    classes: number;
    variables: number;
  };
  unsaved: ItemProblem[];
  /** Items an earlier restore could not bring back, saved again as they were read. */
  unrestored: ItemProblem[];
  message: string;
}

/** The result of `restore_state`. */
export interface RestoreResult {
  name: string;
  restored: string[];
  failed: ItemProblem[];
  message: string;
}
