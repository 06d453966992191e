import type { FailureCode, HandoffKind, Mode, ProposedResolution, RefusalReason } from './policy.js';
import type { Substrate, SubstrateEvent, SubstrateMessage, Usage } from './substrates/types.js';
import type { FieldTag, Voice } from './surfaces.js';

/**
 * An MCP server an invocation brings for its task ("a PR audit gets the GitHub MCP"): started
 * for this session only, as task-relevant, its tools classified by the profile's rules for a
 * server of that name (`servers.NAME` without a command) and the role's access, like the
 * profile's own; with no rule, unknown tools are mutating.
 */
export interface TaskServer {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Which of its tools to use (globs over tool names); default all. */
  readonly tools?: readonly string[];
}

/** One invocation: a persona in a role, on a surface, under an engagement, for a task. */
export interface InvokeRequest {
  /**
   * A profile: a name (in `<home>/personas/` or a directory source), pinned with `@N`
   * (`oddie@2`), a path, a `file:` URI, or a URI a configured source maps (`klappy://personas/oddie`).
   */
  readonly persona: string;
  /** The role; the profile's `role_default` when omitted. */
  readonly role?: string;
  /** Must match the role's bound mode; free for unbound roles (general, observer). */
  readonly mode?: Mode;
  readonly surface: string;
  readonly engagement: 'agent' | 'assistant';
  readonly voice?: Voice;
  readonly task: string;
  /** Handoff ids (in the ledger's store) or files. */
  readonly handoffs?: readonly string[];
  /** An override declaration, or a file holding one. */
  readonly override?: unknown;
  /** Task-relevant MCP servers for this invocation, by name (`--server NAME=CMD`). */
  readonly servers?: Readonly<Record<string, TaskServer>>;
  /** Explicitly requested tools (`server__tool`, or an agent CLI's built-in). */
  readonly tools?: readonly string[];
  /** Prior conversation to carry in (refused for validators: fresh context). */
  readonly context?: readonly SubstrateMessage[];
  /** Governance pointers the session may read (the only extra a validator takes). */
  readonly governance?: readonly string[];
  /** Continue this session (an assistant session that yielded the turn). */
  readonly continue?: string;
  /** A substrate, or a spec (`scripted:FILE`, a kind name); else the runtime's default. */
  readonly substrate?: Substrate | string;
  /** Receives the substrate's events as they happen (text, tool calls and results, usage). */
  readonly onEvent?: (event: SubstrateEvent) => void;
  /**
   * The service's invocation this session runs (set by the service, never by a client), on the
   * start row: `invocation`, `attempt`, and `reason` when an attempt after the first took over.
   */
  readonly invocation?: { readonly id: string; readonly attempt: number; readonly reason?: string };
}

/** A receiving session's structured refusal of its input. */
export interface HandoffInsufficient {
  readonly type: 'handoff_insufficient';
  readonly missing: readonly string[];
  /** One of the canon's three (`PROPOSED_RESOLUTIONS`); anything else is an invalid outcome. */
  readonly proposed_resolution: ProposedResolution;
  /** The handoffs it found insufficient. */
  readonly handoffs: readonly string[];
}

/** An assistant session's question: the turn is the caller's (`--continue SESSION_ID`). */
export interface TurnYielded {
  readonly type: 'turn_yielded';
  readonly question: string;
}

export type Outcome = HandoffInsufficient | TurnYielded;

export interface InvokeOutput {
  /** The final prose, for people. */
  readonly text: string;
  /** The parsed fenced JSON, for code. */
  readonly data?: unknown;
  /** The handoff produced, for code. */
  readonly handoff?: { readonly id: string; readonly kind: HandoffKind; readonly content: unknown };
  readonly fields: Readonly<Record<string, FieldTag>>;
  /** Set when an operator override produced it. */
  readonly override_produced?: true;
  /** The override sessions it descends from (its own, and any upstream of its inputs). */
  readonly override_lineage?: readonly string[];
}

export interface InvokeMeta {
  readonly session_id: string;
  readonly persona: string;
  readonly persona_version?: number | string;
  readonly role: string;
  readonly mode: Mode | null;
  readonly surface: string;
  readonly engagement: 'agent' | 'assistant';
  readonly voice: Voice;
  readonly started_at: string;
  readonly completed_at: string;
  readonly refusal_reason?: RefusalReason;
  readonly failure_reason?: FailureCode;
  /** Why, in words: the missing fields, the forbidden tools, … */
  readonly detail?: string;
  readonly attempts: number;
  readonly substrate?: string;
  /**
   * How an agent CLI session of a role without mutating tools was confined: the OS sandbox's
   * kind and the session's scratch directory, or `off` and the profile's reason.
   */
  readonly sandbox?: { readonly kind: string; readonly scratch?: string; readonly reason?: string };
  /** The handoffs this session read. */
  readonly handoff_inputs: readonly string[];
  /** The handoff this session produced. */
  readonly handoff_id?: string;
  /** The locked tool set the substrate was given. */
  readonly tools: readonly string[];
  readonly removed_tools: readonly string[];
  readonly denials: readonly { readonly tool: string; readonly reason: string }[];
  readonly flags: readonly string[];
  readonly override?: { readonly modes_collapsed: readonly Mode[]; readonly reason: string };
  readonly override_produced?: boolean;
  /** The override sessions this session's output descends from, transitively. */
  readonly override_lineage?: readonly string[];
  readonly acknowledgements: readonly { readonly kind: string; readonly acknowledgement: string }[];
  readonly journal: string;
  readonly usage?: Usage;
  readonly timings: {
    readonly total_ms: number;
    readonly substrate_ms: number;
    readonly overhead_ms: number;
  };
}

export interface InvokeResult {
  readonly status: 'completed' | 'refused' | 'failed';
  readonly meta: InvokeMeta;
  readonly output: InvokeOutput | null;
  readonly outcome?: Outcome;
}
