import * as z from 'zod';
import {
  defineTool,
  READ_ONLY,
  type Tool,
  type ToolAnnotations,
  UserError,
  WRITES_ADDITIVE,
} from '../core/index.js';
import type { Repl } from './repl.js';

/** One line on a relay capability's server for describe_capability's text. */
function backendLine(backend: {
  state: string;
  restarts: number;
  pid?: number | undefined;
  last_crash?: { how: string } | undefined;
}): string {
  const crash = backend.last_crash ? `; last crash: ${backend.last_crash.how}` : '';
  return `server: ${backend.state}${backend.pid ? ` (pid ${backend.pid})` : ''}, restarts: ${backend.restarts}${crash}`;
}

/** The longest `execute` timeout (24 h): far below Node's timer limit (2^31-1 ms, about 24.8 days). */
export const MAX_EXECUTE_TIMEOUT_S = 86_400;

/** `install_capability` takes the program as `command` or as `server_command`; one is needed. */
function commandOf(command: string | undefined, serverCommand: string | undefined): string {
  if (command !== undefined && serverCommand !== undefined && command !== serverCommand) {
    throw new UserError('`command` and `server_command` differ; they are two names for one value', {
      code: 'INVALID_ARGUMENT',
      hint: 'pass only one of `command` or `server_command`',
    });
  }
  const value = command ?? serverCommand;
  if (value === undefined) {
    throw new UserError('install_capability needs the command that starts the MCP server', {
      code: 'INVALID_ARGUMENT',
      hint: 'pass `command` (or `server_command`), e.g. "mcp-server-memory" or "npx -y @modelcontextprotocol/server-memory"',
    });
  }
  return value;
}

const problem = z.object({ name: z.string(), kind: z.string(), reason: z.string() });

const executionResult = {
  success: z.boolean(),
  stdout: z.string(),
  stderr: z.string().describe('Tracebacks and notices from the harness (restarts, truncation) appear here'),
  return_value: z
    .unknown()
    .describe("The trailing expression's value: JSON when it is JSON, else its repr; null for None"),
  error_type: z.string().nullable(),
  error_message: z.string().nullable(),
  execution_count: z.number().int(),
};

const replState = {
  defined_functions: z.array(
    z.object({ name: z.string(), signature: z.string(), docstring: z.string().nullable() }),
  ),
  variables: z.record(z.string(), z.string()).describe('name → type ("class", "module" or the type name)'),
  capabilities: z.array(z.string()),
  history_length: z.number().int(),
  execution_count: z.number().int(),
};

const message = { message: z.string() };

const RUNS_CODE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};
const STARTS_SERVER: ToolAnnotations = { ...WRITES_ADDITIVE, openWorldHint: true };
const REMOVES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};

/** The names of the harness's eight tools, in the order `replTools` declares them. */
export const REPL_TOOL_NAMES = [
  'execute',
  'state',
  'install_capability',
  'uninstall_capability',
  'describe_capability',
  'save_state',
  'restore_state',
  'reset',
] as const;

/** The harness's tools as data, exactly the seed's eight; `src/servers/` registers them. */
export function replTools(repl: Repl): Tool[] {
  const tools = [
    defineTool({
      name: 'execute',
      title: 'Execute Python',
      description:
        'Run Python code in the persistent REPL (Jupyter semantics: the value of a trailing expression is returned, None hidden). ' +
        'Installed capabilities are objects in the namespace: `fs.read_text_file(path="a.txt")`; a backend error raises CapabilityError. ' +
        'Register your own with `register_capability(obj)` (obj needs `name` and `describe()`). ' +
        'Output is capped; on timeout the cell is interrupted (KeyboardInterrupt), and killed and restarted if it does not stop.',
      input: {
        code: z.string().describe('Python code; may be many lines'),
        timeout: z
          .number()
          .positive('timeout is in seconds and must be above 0 (range: 0 < timeout <= 86400)')
          .max(
            MAX_EXECUTE_TIMEOUT_S,
            `timeout is in seconds, at most ${MAX_EXECUTE_TIMEOUT_S} (24 h); range: 0 < timeout <= ${MAX_EXECUTE_TIMEOUT_S}`,
          )
          .optional()
          .describe(
            `Seconds before the cell is interrupted, at most ${MAX_EXECUTE_TIMEOUT_S} (default from settings: repl.timeout_s)`,
          ),
      },
      output: executionResult,
      annotations: RUNS_CODE,
      handler: async ({ code, timeout }, extra) =>
        repl.execute(code, { timeoutS: timeout, ...(extra.progress ? { progress: extra.progress } : {}) }),
    }),
    defineTool({
      name: 'state',
      title: 'REPL state',
      description:
        'Functions (with signatures and docstrings), variables with their types, capabilities and history length.',
      input: {},
      output: replState,
      annotations: READ_ONLY,
      handler: async () => repl.state(),
    }),
    defineTool({
      name: 'install_capability',
      title: 'Install a capability',
      description:
        'Start an MCP server and make its tools methods of a Python object named `name` (tool names become identifiers: get-sum → get_sum). ' +
        'Give `command` and `args` separately, or one command line in `command` (or `server_command`, its other name). Backends get a minimal environment plus `env`.',
      input: {
        name: z.string().describe('Python variable name for the capability, e.g. "fs"'),
        command: z
          .string()
          .optional()
          .describe(
            'Program starting the MCP server (stdio), or a whole command line when `args` is omitted',
          ),
        server_command: z
          .string()
          .optional()
          .describe(
            'The same as `command` (either name works): e.g. "npx -y @modelcontextprotocol/server-memory"',
          ),
        args: z.array(z.string()).optional(),
        env: z
          .record(z.string(), z.string())
          .optional()
          .describe('Extra environment variables, e.g. MEMORY_FILE_PATH'),
        cwd: z.string().optional(),
      },
      output: { name: z.string(), methods: z.array(z.string()), description: z.string(), ...message },
      annotations: STARTS_SERVER,
      handler: async ({ server_command, command, ...rest }, extra) =>
        repl.installCapability(
          { ...rest, command: commandOf(command, server_command) },
          extra.progress ? { progress: extra.progress } : {},
        ),
      text: (output) => `${output.message}\n\n${output.description}`,
    }),
    defineTool({
      name: 'uninstall_capability',
      title: 'Uninstall a capability',
      description:
        'Remove a capability from the REPL; a relay capability also stops its server (the whole process group).',
      input: { name: z.string() },
      output: { name: z.string(), ...message },
      annotations: REMOVES,
      handler: async ({ name }) => repl.uninstallCapability(name),
      text: (output) => output.message,
    }),
    defineTool({
      name: 'describe_capability',
      title: 'Describe a capability',
      description:
        "A capability's methods with their parameters and descriptions, from the server's tool specs (or the object's describe()).",
      input: { name: z.string() },
      output: {
        name: z.string(),
        description: z.string(),
        backend: z
          .object({
            state: z.enum(['running', 'crashed']),
            restarts: z.number().int(),
            pid: z.number().int().optional(),
            last_crash: z.object({ how: z.string(), stderr: z.string(), at: z.string() }).optional(),
          })
          .optional()
          .describe(
            "A relay capability's server: running or crashed (restarted on the next call), restarts so far, the last crash",
          ),
      },
      annotations: READ_ONLY,
      handler: async ({ name }) => repl.describeCapability(name),
      text: (output) =>
        output.backend ? `${output.description}\n\n${backendLine(output.backend)}` : output.description,
    }),
    defineTool({
      name: 'save_state',
      title: 'Save REPL state',
      description:
        'Save functions and classes (by source), variables (JSON, else pickle), capabilities and history to <home>/repl/states/<name>.json. Lists anything that could not be saved.',
      input: { name: z.string().default('default') },
      output: {
        name: z.string(),
        file: z.string(),
        saved: z.object({
          capabilities: z.number().int(),
          native_capabilities: z.number().int(),
          functions: z.number().int(),
          classes: z.number().int(),
          variables: z.number().int(),
        }),
        unsaved: z.array(problem),
        unrestored: z
          .array(problem)
          .describe('Items an earlier restore could not bring back, kept in the file as they were read'),
        ...message,
      },
      annotations: WRITES_ADDITIVE,
      handler: async ({ name }) => repl.saveState(name),
      text: (output) => output.message,
    }),
    defineTool({
      name: 'restore_state',
      title: 'Restore REPL state',
      description:
        'Re-install the saved capabilities and restore the saved functions, classes, variables and native capabilities into the current namespace. Lists every item that could not be restored.',
      input: { name: z.string().default('default') },
      output: { name: z.string(), restored: z.array(z.string()), failed: z.array(problem), ...message },
      annotations: { ...WRITES_ADDITIVE, openWorldHint: true },
      handler: async ({ name }) => repl.restoreState(name),
      text: (output) => output.message,
    }),
    defineTool({
      name: 'reset',
      title: 'Reset the REPL',
      description: 'Clear the namespace and history; installed and registered capabilities are kept.',
      input: {},
      output: { capabilities: z.array(z.string()), ...message },
      annotations: REMOVES,
      handler: async () => repl.reset(),
      text: (output) => output.message,
    }),
  ];
  return tools;
}
