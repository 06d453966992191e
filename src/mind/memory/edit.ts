import { join } from 'node:path';
import {
  homePaths,
  isFirstlightError,
  mtimeMs,
  parseFrontmatter,
  UserError,
  withFileLock,
  writeConfined,
} from '../../core/index.js';
import { INDEX_FILE, isPlainMemoryFile, MAX_MEMORY_BYTES, readMemoryText } from './entries.js';
import { unclosedFrontmatter } from './fast-frontmatter.js';
import { indexTitle, oneLine } from './names.js';
import { findIndexLine, readIndex, writeIndex } from './remember.js';
import { MemoryStore } from './store.js';
import { isValidType, validTypesText } from './types.js';

/** The fields of an edited memory that the index line and listings show. */
export interface CheckedMemory {
  name: string;
  type: string;
  description: string;
}

/** Thrown when an edited memory does not validate: names the field, and the fix. */
function invalid(field: string, message: string, hint: string): UserError {
  return new UserError(`${field}: ${message}`, { code: 'MEMORY_INVALID', hint });
}

/**
 * Checks a memory file's text as a hand edit left it: a frontmatter block that closes and parses
 * as a YAML mapping, a non-empty `name`, a `type` from the closed list (or `custom:NAME`; a type
 * the file already had before the edit is kept, so older homes can be edited), a one-line
 * `description`, `tags` and `applies_to` as lists of strings (or one comma-separated string). The error
 * names the field.
 */
export function checkMemoryText(text: string, options: { previousType?: string } = {}): CheckedMemory {
  if (text.includes('\u0000')) throw invalid('content', 'contains NUL bytes', 'memories are text');
  if (Buffer.byteLength(text) > MAX_MEMORY_BYTES) {
    throw invalid('content', `is larger than ${MAX_MEMORY_BYTES} bytes`, 'split it into several memories');
  }
  if (!/^---\r?\n/.test(text)) {
    throw invalid(
      'frontmatter',
      'missing (the file must start with a --- line)',
      'keep the block between the two --- lines at the top (name, type, description)',
    );
  }
  if (unclosedFrontmatter(text)) {
    throw invalid(
      'frontmatter',
      'never closes (no second --- line)',
      'add the closing --- line after the fields',
    );
  }
  const fm = parseFrontmatter(text);
  if (fm.error) throw invalid('frontmatter', fm.error, 'fix the YAML between the --- lines');
  const data = fm.data;
  const name = data.name;
  if (typeof name !== 'string' || name.trim() === '') {
    throw invalid('name', 'must be a non-empty string', 'name: "A short title"');
  }
  const type = typeof data.type === 'string' ? data.type.trim().toLowerCase() : '';
  if (type === '' || (!isValidType(type) && type !== options.previousType)) {
    throw invalid(
      'type',
      type === '' ? 'is missing' : `"${String(data.type)}" is not a memory type`,
      `type: one of ${validTypesText()}`,
    );
  }
  if (data.description !== undefined && typeof data.description !== 'string') {
    throw invalid('description', 'must be a string', 'description: "one line"');
  }
  for (const field of ['tags', 'applies_to'] as const) {
    const value = data[field];
    // A comma-separated string is read as a list too (hand-written files use both).
    if (value === undefined || value === null || typeof value === 'string') continue;
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' || typeof v === 'number')) {
      throw invalid(field, 'must be a list of strings', `${field}: ["one", "two"]`);
    }
  }
  return {
    name: name.trim(),
    type,
    description: typeof data.description === 'string' ? data.description : '',
  };
}

export interface SaveEditResult extends CheckedMemory {
  file: string;
  changed: boolean;
  index_line_updated: boolean;
}

/**
 * Saves a hand edit of `file`: checks it ({@link checkMemoryText}), then, under the memory lock,
 * refuses when the file changed since the edit began (`original`: its text then), writes it
 * atomically and, when the edit changed the name or description, the matching part of its
 * MEMORY.md line.
 */
export async function saveEditedMemory(
  home: string,
  file: string,
  original: string,
  edited: string,
  options: { store?: MemoryStore } = {},
): Promise<SaveEditResult> {
  const paths = homePaths(home);
  const previousType = parseFrontmatter(original).data.type;
  const checked = checkMemoryText(edited, {
    ...(typeof previousType === 'string' ? { previousType: previousType.trim().toLowerCase() } : {}),
  });
  if (edited === original) return { ...checked, file, changed: false, index_line_updated: false };
  const store =
    options.store ?? new MemoryStore(paths.memory, { cacheFile: join(paths.cache, 'memory-entries.json') });
  if (!isPlainMemoryFile(file)) {
    throw new UserError(`"${file}" is not a memory file name`, {
      code: 'INVALID_ARGUMENT',
      hint: 'name a file inside memory/, without a path',
    });
  }
  return withFileLock(paths.memory, async () => {
    const path = join(paths.memory, file);
    let now: string | undefined;
    try {
      now = readMemoryText(paths.memory, file);
    } catch (error) {
      if (isFirstlightError(error)) throw error;
      now = undefined;
    }
    if (now === undefined) {
      throw new UserError(`memory/${file} was removed while you edited it`, {
        code: 'MEMORY_CHANGED',
        hint: 'restore it (firstlight memory restore) or remember it again',
      });
    }
    if (now !== original) {
      throw new UserError(`memory/${file} changed while you edited it; your edit was not saved`, {
        code: 'MEMORY_CHANGED',
        hint: `run firstlight memory edit ${file} again`,
      });
    }
    const dirMtimeBefore = mtimeMs(paths.memory) ?? Number.NaN;
    await writeConfined(path, edited, { root: paths.memory });
    let indexUpdated = false;
    const indexText = readIndex(paths.memory);
    if (indexText !== undefined) {
      const lines = indexText.split('\n');
      const at = findIndexLine(lines, (_title, lineFile) => lineFile === file);
      const before = parseFrontmatter(original).data;
      const renamed = typeof before.name !== 'string' || before.name.trim() !== checked.name;
      const redescribed =
        (typeof before.description === 'string' ? before.description : '') !== checked.description;
      // A hand-written index hook stays unless the edit changed what it mirrors.
      if (at && (renamed || redescribed)) {
        const m = /^(\s*[-*]\s+)\[((?:\\.|[^\]\\])*)\]\(([^)]+)\)(?:\s+-\s+(.*))?$/.exec(lines[at.index]!);
        const title = renamed || !m ? indexTitle(checked.name) : m[2]!;
        const hook = redescribed || !m ? oneLine(checked.description) : (m[4] ?? '');
        const line = `${m?.[1] ?? '- '}[${title}](${file})${hook ? ` - ${hook}` : ''}`;
        if (lines[at.index] !== line) {
          lines[at.index] = line;
          await writeIndex(paths.memory, lines.join('\n'));
          indexUpdated = true;
        }
      }
    }
    store.noteWritten([file, INDEX_FILE], dirMtimeBefore);
    return { ...checked, file, changed: true, index_line_updated: indexUpdated };
  });
}
