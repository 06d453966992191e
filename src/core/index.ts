/**
 * @module core — the home and its settings, atomic files, append-only line logs and
 * cross-process locks, the error hierarchy, stderr logging, frontmatter, the token estimate,
 * English text analysis (tokens, stop words, stemmer), tool-name globs, a PATH search and the tool-spec shape
 * every part uses to declare MCP tools as data.
 */

export type { FollowedTail, Tail } from './append-log.js';
export { appendLine, readTailLines, TailFollower } from './append-log.js';
export type { CaptureSettings } from './capture-settings.js';
export {
  captureSettingsSchema,
  DEFAULT_DAILY_TOKENS,
  DEFAULT_MAX_PER_SESSION,
  DEFAULT_SESSION_TOKENS,
} from './capture-settings.js';
export type { ConfinedWriteOptions } from './confine.js';
export {
  appendStateLine,
  confinedPath,
  confineFile,
  FileTooLargeError,
  isInside,
  openConfined,
  readConfined,
  readOpened,
  readStateFile,
  readStateTail,
  UnsafeFileError,
  writeConfined,
  writeConfinedSync,
  writeStateFile,
  writeStateFileSync,
} from './confine.js';
export type {
  Prompt,
  PromptContext,
  PromptSpec,
  PromptText,
  ResourceListing,
  ResourceTemplateSpec,
  ResourceText,
} from './content-spec.js';
export { definePrompt } from './content-spec.js';
export { ensureDir, requireDir } from './dirs.js';
export type { FirstlightErrorOptions } from './errors.js';
export {
  asFirstlightError,
  ConfigError,
  FirstlightError,
  isFirstlightError,
  NotFoundError,
  PathEscapeError,
  SystemError,
  UserError,
} from './errors.js';
export { writeAllSync } from './fd-write.js';
export type { LockOptions } from './files.js';
export {
  mtimeMs,
  readTextIfExists,
  withFileLock,
  writeFileAtomically,
  writeFileAtomicallySync,
} from './files.js';
export type { Frontmatter } from './frontmatter.js';
export { parseFrontmatter, renderFrontmatter } from './frontmatter.js';
export {
  callGlob,
  callGlobFrom,
  compileCallGlob,
  matchToolGlob,
  toolGlob,
  toolGlobSource,
} from './glob/compile.js';
export type { CompiledCallGlob, CompiledToolGlob } from './glob/index.js';
export { argValuesOf, matchCompiledCallGlob, matchCompiledToolGlob } from './glob/index.js';
export type {
  HomePaths,
  HomeSource,
  InitResult,
  PersonaAnswers,
  ResolvedHome,
  ResolveHomeInput,
} from './home.js';
export {
  createHome,
  DEFAULT_PERSONA,
  exampleHomeDir,
  HOME_TEMPLATE,
  homePaths,
  initHome,
  isHome,
  requireHome,
  resolveHome,
} from './home.js';
export type { Leftover } from './leftovers.js';
export { describeLeftovers, LEFTOVER_MIN_AGE_MS, sweepLeftovers } from './leftovers.js';
export type { Logger, LogLevel } from './log.js';
export { createLogger, silentLogger } from './log.js';
export { memoByFiles } from './memo.js';
export { packagePath, packageRoot } from './package-root.js';
export {
  cachedParse,
  isJsonExact,
  PARSED_RACY_MS,
  parsedCacheFile,
  readCachedValue,
  writeCachedValue,
} from './parsed-cache.js';
export { findOnPath, isExecutableFile } from './path-search.js';
export type { RedactionCounts, RedactionTotals, RedactionWriter, RedactorConfig } from './redact/index.js';
export {
  noteRedactions,
  Redactor,
  readRedactionTotals,
  redactConfigOf,
  redactedJson,
  redactFor,
  redactorFor,
} from './redact/index.js';
export type { DeclaredServer, RuntimeSettings } from './runtime-settings.js';
export { runtimeSettingsSchema, SERVER_NAME } from './runtime-settings.js';
export type { ServerTokenRecord } from './server-tokens.js';
export { findServerToken, serverTokenDir, serverTokenFile } from './server-tokens.js';
export type { LoadedSettings, Settings } from './settings.js';
export { defaultSettings, loadSettings, settingsSchema } from './settings.js';
export { loadSettingsCached } from './settings-cached.js';
export type { SubstrateSettings } from './substrate-settings.js';
export { substrateSettingsSchema } from './substrate-settings.js';
export type { TermInitials } from './text/index.js';
export {
  byCodeUnit,
  closest,
  contentTerms,
  editDistance,
  mayBeAnyOf,
  normalizeTerm,
  STEMMED_ENDINGS,
  STOP_WORDS,
  stem,
  termInitials,
  tokenize,
  tokensWithOffsets,
} from './text/index.js';
export { estimateTokens, estimateTokensForChars } from './tokens.js';
export type { Tool, ToolAnnotations, ToolCallExtra, ToolOutput, ToolSpec } from './tool-spec.js';
export { defineTool, PREVIEW_META, READ_ONLY, WRITES_ADDITIVE } from './tool-spec.js';
