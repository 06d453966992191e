import { closeSync } from 'node:fs';
import { isAbsolute, join, normalize } from 'node:path';
import {
  NotFoundError,
  openConfined,
  PathEscapeError,
  parseFrontmatter,
  readOpened,
  UnsafeFileError,
  UserError,
} from '../../core/index.js';
import { MAX_MEMORY_BYTES } from './entries.js';
import { inScope, type MemoryScope, projectOf } from './scope.js';
import type { MemorySnapshot } from './store.js';

/** One row of `list_memory_files`: deliberate deeper access, so names are shown here. */
export interface MemoryListing {
  file: string;
  name: string;
  type: string;
  description: string;
  tags: string[];
  /** The project id the memory belongs to; null for a global memory. */
  project: string | null;
}

/**
 * The memories a reader in `scope` sees (default: every one), with the files skipped as malformed,
 * and how many other projects' memories `scope` left out.
 */
export function listMemories(
  snapshot: MemorySnapshot,
  scope: MemoryScope = 'all',
): {
  files: MemoryListing[];
  skipped: { file: string; problem: string }[];
  other_projects: number;
} {
  const seen = snapshot.entries.filter((e) => inScope(e, scope));
  return {
    files: seen.map((e) => ({
      file: e.file,
      name: e.name,
      type: e.type,
      description: e.description,
      tags: e.tags,
      project: projectOf(e) ?? null,
    })),
    skipped: snapshot.problems,
    other_projects: snapshot.entries.length - seen.length,
  };
}

export interface MemoryFile {
  file: string;
  frontmatter: Record<string, unknown>;
  body: string;
}

/**
 * Reads one memory file by name, confined to memory/: no absolute paths, no `..`, and no
 * symlink whose target leaves memory/. `.md` may be omitted.
 */
export function readMemoryFile(memoryDir: string, requested: string): MemoryFile {
  if (typeof requested !== 'string' || requested.trim() === '') {
    throw new UserError('name is empty', {
      code: 'INVALID_ARGUMENT',
      hint: 'pass a file name from list_memory_files',
    });
  }
  if (isAbsolute(requested) || /^[a-zA-Z]:[\\/]/.test(requested)) {
    throw new PathEscapeError(requested, 'memory/', 'absolute paths are not allowed');
  }
  const normalized = normalize(requested);
  if (normalized.split(/[\\/]/).includes('..')) {
    throw new PathEscapeError(requested, 'memory/', '".." would leave memory/');
  }
  const name = normalized.endsWith('.md') ? normalized : `${normalized}.md`;
  let opened: ReturnType<typeof openConfined>;
  try {
    opened = openConfined(join(memoryDir, name), { root: memoryDir });
  } catch (error) {
    if (!(error instanceof UnsafeFileError)) throw error;
    const why = /outside|nowhere/.test(error.message)
      ? 'it is a symlink whose target is outside memory/'
      : error.message.replace(/^refused [^:]*: /, '');
    throw new PathEscapeError(requested, 'memory/', why);
  }
  if (!opened) {
    throw new NotFoundError(
      `no memory file "${requested}"`,
      'call list_memory_files to see the names that exist',
    );
  }
  let text: string;
  try {
    if (opened.stats.size > MAX_MEMORY_BYTES) {
      throw new UserError(`"${requested}" is too large to read (${opened.stats.size} bytes)`, {
        code: 'MEMORY_TOO_LARGE',
        hint: `memory files are limited to ${MAX_MEMORY_BYTES} bytes; split it`,
      });
    }
    text = readOpened(name, opened.fd, opened.stats.size, MAX_MEMORY_BYTES).toString('utf8');
  } finally {
    closeSync(opened.fd);
  }
  const fm = parseFrontmatter(text);
  return { file: name, frontmatter: fm.data, body: fm.body };
}
