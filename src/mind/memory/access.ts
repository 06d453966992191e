import { lstatSync, readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join, normalize } from 'node:path';
import { NotFoundError, PathEscapeError, parseFrontmatter, UserError } from '../../core/index.js';
import { resolvesInside } from './confine.js';
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
  const path = join(memoryDir, name);
  let real: string;
  try {
    lstatSync(path);
    real = realpathSync(path);
  } catch {
    throw new NotFoundError(
      `no memory file "${requested}"`,
      'call list_memory_files to see the names that exist',
    );
  }
  if (!resolvesInside(memoryDir, path)) {
    throw new PathEscapeError(requested, 'memory/', 'it is a symlink whose target is outside memory/');
  }
  const st = lstatSync(real);
  if (!st.isFile())
    throw new UserError(`"${requested}" is not a file`, {
      code: 'INVALID_ARGUMENT',
      hint: 'pass a file name from list_memory_files',
    });
  if (st.size > MAX_MEMORY_BYTES) {
    throw new UserError(`"${requested}" is too large to read (${st.size} bytes)`, {
      code: 'MEMORY_TOO_LARGE',
      hint: `memory files are limited to ${MAX_MEMORY_BYTES} bytes; split it`,
    });
  }
  const text = readFileSync(real, 'utf8');
  const fm = parseFrontmatter(text);
  return { file: name, frontmatter: fm.data, body: fm.body };
}
