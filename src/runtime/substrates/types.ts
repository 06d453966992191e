/**
 * The one interface every substrate implements: the scripted substrate (tests and dry runs),
 * the model APIs (`anthropic`, `openai-compatible`) and the agent CLIs (`claude-cli`,
 * `codex-cli`, `gemini-cli`, `command`). The runtime decides everything about a session
 * (prompt, tools, budget) before it resolves a substrate; a substrate only runs the session it
 * is given and reports what happened, as events and one final result.
 */

/** A JSON Schema object, as a tool's input schema travels to a model. */
export type JsonSchema = Record<string, unknown>;

/** A tool the session may call, after the role's filtering. */
export interface SubstrateTool {
  /** The name the model sees (`server__tool` for hub tools, so names never collide). */
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
}

/** A tool call the model made. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

/** What executing a tool call gave back. `denied` is set when the runtime refused to run it. */
export interface ToolCallResult {
  readonly output: string;
  readonly isError: boolean;
  readonly denied?: { readonly reason: string };
}

/** Token counts for one model call or a whole session; cost only where the substrate knows it. */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd?: number;
}

/** What a substrate reports while it runs; every substrate reports the same kinds. */
export type SubstrateEvent =
  | { readonly type: 'text'; readonly text: string }
  | ({ readonly type: 'tool_call' } & ToolCall)
  | ({ readonly type: 'tool_result'; readonly id: string; readonly name: string } & ToolCallResult)
  | ({ readonly type: 'usage' } & Usage)
  | {
      readonly type: 'error';
      readonly code: string;
      readonly message: string;
      /** True when the substrate will try again (an overload, a 5xx). */
      readonly retrying: boolean;
    };

/** One message of the conversation the session starts from (or continues, under `assistant`). */
export interface SubstrateMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

/** Limits one invocation may not exceed; exceeding one is the named failure `budget_exhausted`. */
export interface Budget {
  readonly maxTurns: number;
  readonly maxTokens?: number;
  readonly wallTimeMs?: number;
}

/** An MCP server the session may use, for substrates that connect servers themselves (CLIs). */
export interface SubstrateMcpServer {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * The confinement of a session that may not change the project (a role without mutating tools)
 * on a substrate whose tools run in its own process (an agent CLI): it runs inside the OS
 * sandbox, with the filesystem read-only but for these places and the CLI's own state.
 */
export interface SubstrateSandboxRequest {
  /** The project: read-only inside the sandbox whatever else is writable. */
  readonly projectDir: string;
  /** The session's scratch directory: writable, kept after the session when not empty. */
  readonly scratchDir: string;
  /** More writable places the profile lists (`sandbox.writable`; `~/` is the home). */
  readonly writable: readonly string[];
}

/** Everything a substrate needs to run one session; built by the runtime, never by a caller. */
export interface SubstrateRequest {
  /** The invocation's id; also the session id a CLI substrate is given where it takes one. */
  readonly sessionId: string;
  readonly systemPrompt: string;
  readonly messages: readonly SubstrateMessage[];
  /** The tools this role may use; the substrate offers the model these and no others. */
  readonly tools: readonly SubstrateTool[];
  /**
   * Tool names the role must not use, for substrates whose built-in tools exist unless removed
   * (an agent CLI's shell and edit tools): they pass these to the CLI's own removal flag.
   */
  readonly removedTools: readonly string[];
  /** MCP servers for substrates that start them themselves; API substrates use `executeTool`. */
  readonly mcpServers: Readonly<Record<string, SubstrateMcpServer>>;
  /**
   * Runs a tool call through the runtime, which rejects a tool outside the locked set (and
   * journals the denial) before anything executes. API and scripted substrates call this for
   * every tool call; CLI substrates cannot, and report the CLI's own denials instead.
   */
  executeTool(call: ToolCall): Promise<ToolCallResult>;
  readonly budget: Budget;
  /** Set when the session must run inside the substrate's OS sandbox ({@link Substrate.sandbox}). */
  readonly sandbox?: SubstrateSandboxRequest;
  readonly signal: AbortSignal;
  onEvent(event: SubstrateEvent): void;
}

/** Why a session did not complete, as a stable code. */
export type SubstrateFailureCode =
  | 'budget_exhausted'
  | 'substrate_unavailable'
  | 'substrate_error'
  | 'aborted';

/** How one session ended. */
export interface SubstrateResult {
  readonly status: 'completed' | 'failed';
  /** The session's final answer (the last assistant text). */
  readonly text: string;
  readonly usage: Usage;
  /**
   * The model's own count of the final answer's output tokens (its last call's), where the
   * substrate reports one; the density cap uses it before counting with a tokenizer.
   */
  readonly emissionTokens?: number;
  /** Model turns taken. */
  readonly turns: number;
  /**
   * Tool calls the substrate itself denied (an agent CLI's permission denials, writes its OS
   * sandbox refused): evidence. `reason` when it is not the CLI's permission system
   * (`sandbox_write_denied`).
   */
  readonly permissionDenials: readonly {
    readonly tool: string;
    readonly input?: unknown;
    readonly reason?: string;
  }[];
  readonly failure?: { readonly code: SubstrateFailureCode; readonly message: string };
  /** Time spent inside the substrate (model or CLI), so the runtime can report its own overhead. */
  readonly substrateMs: number;
}

/** What a substrate can enforce mechanically; docs/runtime.md prints this per substrate. */
export interface SubstrateEnforcement {
  /** The model is offered only the role's tools. */
  readonly toolList: boolean;
  /** A call to any other tool is rejected before it runs. */
  readonly execution: boolean;
}

/** The OS sandbox an agent CLI substrate runs confined sessions in. */
export interface SubstrateSandbox {
  /** `bwrap`. */
  readonly kind: string;
  /** The sandbox's executable. */
  readonly command: string;
  /** Why a confined session cannot start here (the sandbox missing or unusable), or null. */
  unavailable(): Promise<string | null>;
}

export interface Substrate {
  /** `scripted`, `anthropic`, `openai-compatible`, `claude-cli`, `codex-cli`, `gemini-cli`, `command`. */
  readonly kind: string;
  readonly enforcement: SubstrateEnforcement;
  /**
   * The OS sandbox of a substrate that runs tools in its own process (the agent CLIs). Absent
   * where every tool call runs through the runtime's `executeTool` (scripted, the model APIs)
   * or none can be made (`command`).
   */
  readonly sandbox?: SubstrateSandbox;
  run(request: SubstrateRequest): Promise<SubstrateResult>;
}
