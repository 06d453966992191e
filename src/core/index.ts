/**
 * @module core — the home and its settings, atomic files and cross-process locks, the error
 * hierarchy, stderr logging, frontmatter, the token estimate and the tool-spec shape every
 * part uses to declare MCP tools as data.
 */
export {
  FirstlightError,
  UserError,
  SystemError,
  ConfigError,
  PathEscapeError,
  NotFoundError,
  isFirstlightError,
  asFirstlightError,
} from './errors.js';
export type { FirstlightErrorOptions } from './errors.js';
export { createLogger, silentLogger } from './log.js';
export type { Logger, LogLevel } from './log.js';
export { estimateTokens } from './tokens.js';
export { parseFrontmatter, renderFrontmatter } from './frontmatter.js';
export type { Frontmatter } from './frontmatter.js';
export { writeFileAtomically, writeFileAtomicallySync, withFileLock, readTextIfExists, mtimeMs } from './files.js';
export type { LockOptions } from './files.js';
export { packageRoot, packagePath } from './package-root.js';
export { resolveHome, homePaths, exampleHomeDir, initHome, ensureHome } from './home.js';
export type { HomePaths, HomeSource, ResolvedHome, ResolveHomeInput, InitResult } from './home.js';
export { settingsSchema, loadSettings, defaultSettings } from './settings.js';
export type { Settings, LoadedSettings } from './settings.js';
export { defineTool, READ_ONLY, WRITES_ADDITIVE } from './tool-spec.js';
export type { ToolSpec, ToolAnnotations, ToolCallExtra } from './tool-spec.js';
