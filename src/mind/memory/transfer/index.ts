/**
 * @module mind/memory/transfer — memory in and out: `exportMemories` (JSONL with each file's
 * frontmatter, body and exact text, or a tarball of the markdown files), the import sources (an
 * export, a folder of markdown notes in basic-memory or Obsidian style, Claude Code's auto-memory
 * directory), and the import itself as a plan (add, skip a duplicate, or refuse, each with why)
 * that `applyImport` executes.
 */

export type { ClaudeMemoryDir } from './claude.js';
export { claudeAutoMemoryDir } from './claude.js';
export type { ExportFormat, ExportHeader, ExportRecord, ExportResult } from './export.js';
export { exportMemories, TAR_DIR } from './export.js';
export type { ImportAction, ImportPlan, ImportRow } from './plan.js';
export { applyImport, planImport } from './plan.js';
export type { Candidate, ImportKind, ImportSource, WalkLimits } from './sources.js';
export { DEFAULT_WALK_LIMITS, readJsonlExport, readNoteFolder, readTarExport } from './sources.js';
