/**
 * @module runtime — the persona runtime: `createRuntime().invoke()` turns a persona profile
 * into a fresh agent session on a substrate, with the canon's discipline made mechanical:
 * roles bound to modes (policy as data), tools filtered at two points and locked at session
 * start, encoded handoffs validated per transition, a DOLCHEO journal, mode detectors, surface
 * and voice post-processing, engagement, operator override, and within-mode fan-out.
 */

export type { DemoRun } from './demo.js';
export { DEMO_STEPS, runDemo } from './demo.js';
export type { DetectorFlag } from './detectors.js';
export { DETECTOR_FLAGS, detect, redesignFindings } from './detectors.js';
export type { Acknowledgement, HandoffInput, HandoffRecord, StoredHandoff } from './handoffs.js';
export { handoffText, missingFields, sha256Hex } from './handoffs.js';
export type { RuntimeContext } from './invoke.js';
export { ledgerDir, ledgerRoot } from './invoke.js';
export type { JournalEntry, JournalKind, JournalQuery, JournalWrite } from './journal.js';
export {
  formatEntry,
  JOURNAL_HEADER,
  JOURNAL_KINDS,
  journalFilter,
  parseFields,
  parseRow,
  parseSince,
  TYPE_NAMES,
} from './journal.js';
export type {
  FileLedgerOptions,
  HandoffRow,
  HandoffRowMissing,
  InvocationRecord,
  InvocationState,
  Ledger,
  StreamRecord,
  SubscriptionCounts,
  SubscriptionRecord,
  SubscriptionState,
} from './ledger/index.js';
export {
  appendJournal,
  createFileLedger,
  createMemoryLedger,
  handoffsDir,
  readHandoff,
  readJournal,
  readSession,
  readStoredHandoff,
} from './ledger/index.js';
export type { Override } from './override.js';
export { overrideProblems } from './override.js';
export { sourcesOf } from './pipeline/invocation.js';
export { parseTaskServers, withTaskServers } from './pipeline/resolve-profile.js';
export type {
  Access,
  FailureCode,
  HandoffKind,
  Mode,
  NamedRole,
  ProposedResolution,
  RefusalReason,
  RolePolicy,
  ToolClass,
} from './policy.js';
export {
  ACCESS_LEVELS,
  admits,
  canonicalSurface,
  DISPOSITIONS,
  FAILURE_CODES,
  HANDOFF_FIELDS,
  HANDOFF_KINDS,
  MODES,
  PROPOSED_RESOLUTIONS,
  REFUSAL_REASONS,
  ROLE_POLICY,
  ROLES,
  SURFACE_ENGAGEMENT,
} from './policy.js';
export type {
  Profile,
  ProfileOptions,
  ProfileRole,
  PromptSource,
  ServerConfig,
  SurfaceProfile,
} from './profile.js';
export { parseProfile } from './profile.js';
export type { ProfileListing } from './profile-load.js';
export { listProfiles, loadProfile, profilePath } from './profile-load.js';
export type { Provenance, ProvenanceCheck } from './provenance.js';
export { checkProvenance } from './provenance.js';
export type { Runtime, RuntimeOptions } from './runtime.js';
export { createRuntime, mapLimited } from './runtime.js';
export type { SessionState } from './sessions.js';
export { readContextFile } from './sessions.js';
export type { PersonaRef, ProfileSource, ResolvedDocument } from './sources.js';
export { findProfile, resolveDocument, sectionOf, splitPin } from './sources.js';
export { journalStory } from './story.js';
export type {
  BackpressurePolicy,
  ChannelSpec,
  ParticipantSpec,
  SubscribeRequest,
  SubscriptionEvent,
  TeardownReason,
} from './subscriptions/index.js';
export {
  BACKPRESSURE_POLICIES,
  DEFAULT_MAX_PENDING,
  EventBuffer,
  StreamLog,
  Subscription,
  TEARDOWN_REASONS,
} from './subscriptions/index.js';
export { claudeArgs, claudeToolName } from './substrates/claude-cli.js';
export { codexArgs } from './substrates/codex-cli.js';
export type { RealSubstrateKind, SubstrateContext } from './substrates/create.js';
export { createSubstrate, isRealSubstrateKind, REAL_SUBSTRATE_KINDS } from './substrates/create.js';
export { geminiArgs, geminiPolicy, geminiToolName } from './substrates/gemini-cli.js';
export type { SubstrateFactory, SubstrateFactoryOptions } from './substrates/index.js';
export {
  bundledSessions,
  parseSubstrateSpec,
  resolveSubstrate,
  SUBSTRATE_FACTORIES,
  substrateKinds,
} from './substrates/index.js';
export type { CliState, SandboxPlan, SessionSandbox } from './substrates/sandbox.js';
export {
  bwrapSandbox,
  isSandboxWriteDenial,
  SANDBOX_DENIAL,
  sandboxPlan,
  sessionSandbox,
} from './substrates/sandbox.js';
export type { RecordedRequest, Script } from './substrates/scripted.js';
export { ScriptError, ScriptedSubstrate, scriptedSubstrateFromFile } from './substrates/scripted.js';
export type * from './substrates/types.js';
export type { FieldTag, Voice } from './surfaces.js';
export {
  applyVoice,
  countTokens,
  extractFencedJson,
  FUNCTIONAL_EMOJI,
  isFunctionalEmoji,
  isIdentifier,
  stripEmoji,
  VOICES,
} from './surfaces.js';
export type { CatalogTool, ToolSet } from './tools.js';
export { BUILTIN_TOOL_CLASSES, classifyBuiltin, classifyServerTool, computeToolSet } from './tools.js';
export type {
  HandoffInsufficient,
  InvokeMeta,
  InvokeOutput,
  InvokeRequest,
  InvokeResult,
  Outcome,
  TaskServer,
  TurnYielded,
} from './types.js';
