/**
 * @module mind — the persona contract (`@include` assembly), memory (store, catalog, confined
 * file access), the active context, and the bootstrap packet (schema v1) with its markdown
 * rendering; plus the tool specs of the `firstlight` MCP server.
 */

export type { BootstrapRecord } from './bootstrap-record/index.js';
export { readBootstrapRecord } from './bootstrap-record/index.js';
export type {
  CautionaryFlag,
  CognitionDeps,
  CognitionEvent,
  CognitionResult,
  EventListing,
  EventQuery,
  ObserveInput,
  PredictionError,
  ReflectInput,
  ReflectKind,
} from './cognition/index.js';
export {
  appendEvent,
  CAUTIONARY_TYPES,
  Cognition,
  cautionaryFlags,
  cognitionTools,
  eventFileFor,
  LEXICAL_WEIGHT,
  listEvents,
  PREDICTION_ERROR_MEASURE,
  polarityOf,
  predictionError,
  REFLECT_KINDS,
  readRecentEvents,
} from './cognition/index.js';
export { humanDuration, readBullets } from './context.js';
export type { MindContract } from './contract.js';
export { assembleContract, CONTRACT_ERROR_PREFIX } from './contract.js';
export type { CreateMindOptions } from './create-mind.js';
export { createMind, MIND_SERVER_TOOL_NAMES } from './create-mind.js';
export type {
  CheckedMemory,
  EventHit,
  ExportFormat,
  ExportResult,
  Facet,
  ForgetResult,
  ImportAction,
  ImportKind,
  ImportPlan,
  ImportRow,
  ImportSource,
  MemoryCatalog,
  MemoryEntry,
  MemoryFile,
  MemoryListing,
  MemoryOverview,
  MemoryPerson,
  MemoryProblem,
  MemoryScope,
  MemorySnapshot,
  MemoryStoreOptions,
  MemoryToolDeps,
  MemoryType,
  ProjectRef,
  RecallHit,
  RecallIndexOptions,
  RecallOptions,
  RecallResult,
  RecallSourceName,
  RememberInput,
  RememberOptions,
  RememberResult,
  RestoreResult,
  SaveEditResult,
  SimilarMemory,
  TrashOptions,
  TrashRecord,
  WalkLimits,
} from './memory/index.js';
export {
  applyImport,
  CUSTOM_TYPE_PREFIX,
  checkMemoryText,
  claudeAutoMemoryDir,
  DEFAULT_WALK_LIMITS,
  EVENT_TYPES,
  excerptAround,
  exportMemories,
  FIELD_BOOST,
  fileNameFor,
  forgetMemory,
  INDEX_FILE,
  inScope,
  isProblem,
  isValidType,
  listForgotten,
  listMemories,
  listMemoryFiles,
  MAX_CONTENT_CHARS,
  MAX_K,
  MAX_MEMORY_BYTES,
  MEMORY_TYPES,
  MemoryStore,
  matchesFacet,
  memoriesCounted,
  memoryFileFor,
  memoryTools,
  normalizeType,
  openHomeRecall,
  openRecallIndex,
  overviewOf,
  PROJECT_ID_FIELD,
  PROJECT_NAME_FIELD,
  parseFacet,
  parseTimeBound,
  planImport,
  projectOf,
  RECALL_SOURCES,
  RecallIndex,
  readJsonlExport,
  readMemoryEntry,
  readMemoryFile,
  readMemoryText,
  readNoteFolder,
  readTarExport,
  remember,
  rememberIn,
  restoreMemory,
  SIMILAR_FLOOR,
  SUPERSEDED_FACTOR,
  saveEditedMemory,
  shortTitle,
  TRASH_DIR,
  trustedRecall,
  validTypesText,
} from './memory/index.js';
export type { BootstrapOptions, MindOptions, PacketSections, SectionResult } from './mind.js';
export { Mind } from './mind.js';
export type { MemoryUse, MemoryUseVia, Surprise } from './observation/index.js';
export {
  listMemoryUses,
  readMemoryUses,
  readSurprises,
  recordMemoryUse,
  STOP_LINE,
  surprisesFile,
  usesDir,
} from './observation/index.js';
export type {
  ActiveContext,
  BootstrapPacket,
  GuidanceEntry,
  Resumption,
  TaskspaceState,
} from './packet-schema.js';
export {
  CONTRACT_KEYS,
  guidanceEntrySchema,
  PACKET_SCHEMA_VERSION,
  packetContractSchema,
  packetJsonSchema,
  packetSchema,
  packetShape,
  resumptionSchema,
  taskspaceSchema,
} from './packet-schema.js';
export { BOOTSTRAP_RULE, cognitionProtocol, HOST_LIMITATIONS } from './protocol.js';
export type { RelevantMemories, RelevantMemory } from './relevant.js';
export { readRelated, refreshRelated, relatedQuery, relevantMemories } from './relevant.js';
export type { RenderOptions } from './render-markdown.js';
export { DEFAULT_MARKDOWN_MAX_CHARS, renderPacketMarkdown } from './render-markdown.js';
export type { SessionHistory } from './session-files.js';
export { readSessionHistory } from './session-files.js';
export type { MindServerParts } from './surface.js';
export { mindServerPrompts, mindServerResources, mindServerTools } from './surface.js';
export type { ConnectionInfo } from './tools.js';
export { mindTools } from './tools.js';
