/**
 * Policy as data: which mode each role is bound to, which tools it may hold, which handoff it
 * must receive and which it produces, and the reason codes of every refusal. The invoke
 * pipeline reads these tables; it adds no rule of its own.
 */

/** The five canonical epistemic modes. */
export const MODES = ['exploration', 'planning', 'execution', 'validation', 'resolution'] as const;
export type Mode = (typeof MODES)[number];

/** The named roles: five bound to a mode, `general` (the escape hatch) and `observer`. */
export const ROLES = [
  'explorer',
  'planner',
  'builder',
  'validator',
  'resolver',
  'general',
  'observer',
] as const;
export type NamedRole = (typeof ROLES)[number];

/**
 * How much a session may change. `read_only`: nothing; `scratch`: read plus draft writes to a
 * scratch area (tools the profile classifies `scratch`); `mutating`: anything.
 */
export const ACCESS_LEVELS = ['read_only', 'scratch', 'mutating'] as const;
export type Access = (typeof ACCESS_LEVELS)[number];

/** How a tool is classified; unknown tools are `mutating`. */
export type ToolClass = Access;

/** The handoff kinds, one per transition's minimal content. */
export const HANDOFF_KINDS = ['synthesis', 'plan', 'artifact', 'findings', 'revision'] as const;
export type HandoffKind = (typeof HANDOFF_KINDS)[number];

/**
 * Context freshness, as the canon's roles state it:
 * - `strict` (validator): only the profile, the artifact, its claims and governance; no prior
 *   conversation, no other handoff, no "as we discussed" framing in the task;
 * - `fresh` (planner, builder, resolver): no prior conversation; the session reads its input
 *   handoffs, never the upstream session's state;
 * - `light` (explorer): prior conversation may come in, and earlier work, but no handoff a
 *   later mode produced (an explorer builds on exploration, not on planning);
 * - `none` (general, observer): nothing checked.
 */
export const FRESHNESS = ['strict', 'fresh', 'light', 'none'] as const;
export type Freshness = (typeof FRESHNESS)[number];

/** One role's canonical configuration. Custom roles in a profile have the same shape. */
export interface RolePolicy {
  readonly mode: Mode | null;
  readonly access: Access;
  /** Handoff kinds any one of which the session must receive (empty: none required). */
  readonly requires: readonly HandoffKind[];
  /** The handoff kind a completed session produces (null: none). */
  readonly produces: HandoffKind | null;
  readonly freshness: Freshness;
}

/** The canonical role table. */
export const ROLE_POLICY: Readonly<Record<NamedRole, RolePolicy>> = {
  explorer: {
    mode: 'exploration',
    access: 'read_only',
    requires: [],
    produces: 'synthesis',
    freshness: 'light',
  },
  planner: {
    mode: 'planning',
    access: 'scratch',
    requires: ['synthesis'],
    produces: 'plan',
    freshness: 'fresh',
  },
  builder: {
    mode: 'execution',
    access: 'mutating',
    requires: ['plan'],
    produces: 'artifact',
    freshness: 'fresh',
  },
  validator: {
    mode: 'validation',
    access: 'read_only',
    requires: ['artifact', 'revision'],
    produces: 'findings',
    freshness: 'strict',
  },
  resolver: {
    mode: 'resolution',
    access: 'mutating',
    requires: ['findings'],
    produces: 'revision',
    freshness: 'fresh',
  },
  general: { mode: null, access: 'mutating', requires: [], produces: null, freshness: 'none' },
  observer: { mode: null, access: 'read_only', requires: [], produces: null, freshness: 'none' },
};

/** The minimal fields of each handoff kind (dotted paths into its content). */
export const HANDOFF_FIELDS: Readonly<Record<HandoffKind, readonly string[]>> = {
  synthesis: ['possibilities', 'tensions', 'unknowns', 'frames'],
  plan: ['assumptions', 'scope.in', 'scope.out', 'deferred', 'would_invalidate'],
  artifact: ['artifact', 'claims.does', 'claims.does_not', 'claims.scope'],
  findings: ['findings'],
  revision: ['artifact', 'remediation'],
};

/** Finding dispositions. */
export const DISPOSITIONS = ['fix', 'pivot', 'accept'] as const;

/** Which classes of tool an access level admits. */
export const ACCESS_ADMITS: Readonly<Record<Access, readonly ToolClass[]>> = {
  read_only: ['read_only'],
  scratch: ['read_only', 'scratch'],
  mutating: ['read_only', 'scratch', 'mutating'],
};

/** Every refusal reason, stable codes for `meta.refusal_reason`. */
export const REFUSAL_REASONS = [
  'mutating_tools_for_role',
  'missing_handoff',
  'incomplete_handoff',
  'no_builder_handoff',
  'validator_extra_context',
  'inherited_context',
  'same_session_transition',
  'tool_set_locked',
  'handoff_unverified',
  'engagement_surface',
  'invalid_override',
  'sandbox_unavailable',
] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/**
 * Every named failure a session can end with: the post-processing's own and the substrates'
 * (`SubstrateFailureCode`). Exactly the codes the pipeline emits; a test drives each one.
 */
export const FAILURE_CODES = [
  'clarification_required',
  'density_exceeded',
  'structured_output_invalid',
  'deliverable_incomplete',
  'redesign_instead_of_finding',
  'invalid_outcome',
  'budget_exhausted',
  'substrate_unavailable',
  'substrate_error',
  'aborted',
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

/** What a receiving session may propose when it refuses its input as insufficient (the canon's three). */
export const PROPOSED_RESOLUTIONS = [
  'request fresh upstream session',
  'request clarification from upstream author',
  'operator override decision',
] as const;
export type ProposedResolution = (typeof PROPOSED_RESOLUTIONS)[number];

/** The mode that produces a handoff of each kind. */
export const PRODUCER_MODE: Readonly<Record<HandoffKind, Mode>> = {
  synthesis: 'exploration',
  plan: 'planning',
  artifact: 'execution',
  findings: 'validation',
  revision: 'resolution',
};

/** The mode that reads a handoff of each kind. */
export const CONSUMER_MODE: Readonly<Record<HandoffKind, Mode>> = {
  synthesis: 'planning',
  plan: 'execution',
  artifact: 'validation',
  findings: 'resolution',
  revision: 'validation',
};

/** The named role bound to each mode. */
export const MODE_ROLE: Readonly<Record<Mode, NamedRole>> = {
  exploration: 'explorer',
  planning: 'planner',
  execution: 'builder',
  validation: 'validator',
  resolution: 'resolver',
};

/** Surfaces whose engagement is fixed: the other engagement is refused (`engagement_surface`). */
export const SURFACE_ENGAGEMENT: Readonly<Record<string, 'agent' | 'assistant'>> = {
  'real-time-stream': 'agent',
  'sidebar-chat': 'assistant',
};

/** Mode of each role, for reading journal and handoff records. */
export function modeOf(policy: RolePolicy): Mode | null {
  return policy.mode;
}

/** True when a tool of class `tool` is admitted under `access`. */
export function admits(access: Access, tool: ToolClass): boolean {
  return ACCESS_ADMITS[access].includes(tool);
}

/** `a` or `an` before a word, by its first letter (handoff kinds and roles are plain English words). */
export function article(word: string): string {
  return /^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`;
}

/** The surface name in its canonical (hyphenated) spelling: `real_time_stream` → `real-time-stream`. */
export function canonicalSurface(name: string): string {
  return name.trim().toLowerCase().replace(/_/g, '-');
}
