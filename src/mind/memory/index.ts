/**
 * @module mind/memory — memory files: the cached entry snapshot (frontmatter only), the packet
 * catalog, confined reads, `remember` (file + MEMORY.md line under a cross-process lock on
 * memory/), hand edits checked before they are saved, forget/restore through memory/.trash/,
 * the closed list of memory types, and BM25 `recall` over a derived, persisted, incrementally refreshed index (its
 * text analysis lives in core).
 */

export type { MemoryFile, MemoryListing } from './access.js';
export { listMemories, readMemoryFile } from './access.js';
export type { MemoryCatalog } from './catalog.js';
export { memoriesCounted } from './catalog.js';
export { parseTimeBound } from './dates.js';
export type { CheckedMemory, SaveEditResult } from './edit.js';
export { checkMemoryText, saveEditedMemory } from './edit.js';
export type { MemoryEntry, MemoryProblem } from './entries.js';
export {
  INDEX_FILE,
  isPlainMemoryFile,
  isProblem,
  listMemoryFiles,
  MAX_MEMORY_BYTES,
  readMemoryEntry,
  readMemoryText,
} from './entries.js';
export { excerptAround } from './excerpt.js';
export type { Facet } from './facet.js';
export { matchesFacet, parseFacet } from './facet.js';
export { fileNameFor, shortTitle } from './names.js';
export type { MemoryOverview, MemoryPerson } from './overview.js';
export { overviewOf } from './overview.js';
export type {
  EventHit,
  EventsPaths,
  RecallHit,
  RecallIndexOptions,
  RecallOptions,
  RecallResult,
  RecallSourceName,
} from './recall-index.js';
export {
  EVENT_TYPES,
  FIELD_BOOST,
  homeEventsPaths,
  MAX_K,
  openHomeRecall,
  RECALL_SOURCES,
  RecallIndex,
  SIMILAR_FLOOR,
  SUPERSEDED_FACTOR,
} from './recall-index.js';
export type {
  ExtraField,
  RememberInput,
  RememberOptions,
  RememberResult,
  SimilarMemory,
} from './remember.js';
export { EXTRA_FIELDS, MAX_CONTENT_CHARS, remember } from './remember.js';
export type { MemoryScope, ProjectRef } from './scope.js';
export { inScope, PROJECT_ID_FIELD, PROJECT_NAME_FIELD, projectOf } from './scope.js';
export type { MemorySnapshot, MemoryStoreOptions } from './store.js';
export { MemoryStore } from './store.js';
export type { MemoryToolDeps } from './tools.js';
export { memoryTools, openRecallIndex, rememberIn } from './tools.js';
export type {
  ExportFormat,
  ExportResult,
  ImportAction,
  ImportKind,
  ImportPlan,
  ImportRow,
  ImportSource,
  WalkLimits,
} from './transfer/index.js';
export {
  applyImport,
  claudeAutoMemoryDir,
  DEFAULT_WALK_LIMITS,
  exportMemories,
  planImport,
  readJsonlExport,
  readNoteFolder,
  readTarExport,
} from './transfer/index.js';
export type { ForgetResult, RestoreResult, TrashOptions, TrashRecord } from './trash.js';
export { forgetMemory, listForgotten, memoryFileFor, restoreMemory, TRASH_DIR } from './trash.js';
export { trustedRecall } from './trusted-index.js';
export type { MemoryType } from './types.js';
export { CUSTOM_TYPE_PREFIX, isValidType, MEMORY_TYPES, normalizeType, validTypesText } from './types.js';
