import { closeSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { openConfined, readConfined, UnsafeFileError } from '../../core/confine.js';
import { readFrontmatter, unclosedFrontmatter } from './fast-frontmatter.js';

/** What the catalog and the index need of one memory file, without its body. */
export interface MemoryEntry {
  /** File name inside memory/ (never shown in the packet). */
  file: string;
  mtimeMs: number;
  size: number;
  name: string;
  type: string;
  description: string;
  tags: string[];
  appliesTo: string[];
  /** Every other scalar frontmatter field, lower-cased values, for facets (`relationship:bob`). */
  fields: Record<string, string>;
  /** List-valued frontmatter fields other than tags, lower-cased, for facets (`projects:portal`). */
  listFields?: Record<string, string[]>;
}

/** A file that was skipped, and why; reported, never fatal. */
export interface MemoryProblem {
  file: string;
  problem: string;
}

/** Files above this size are skipped: a memory is a note, not a data dump. */
export const MAX_MEMORY_BYTES = 1024 * 1024;
/** Frontmatter lives at the top; reading this much of a file is enough to find it. */
const HEAD_BYTES = 16 * 1024;

export const INDEX_FILE = 'MEMORY.md';

/** Names of the memory markdown files, sorted; hidden and non-.md files are ignored. */
export function listMemoryFiles(memoryDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(memoryDir);
  } catch {
    return [];
  }
  return names.filter(isMemoryFileName).sort();
}

/**
 * Whether `name` can be a memory's own file: one plain `.md` name in memory/ (no path, no `..`,
 * not hidden, no control characters). A MEMORY.md line that links anywhere else is not a memory's
 * line, and no writer, mover or reader follows it (an imported `- [T](../../x.sh)` is text).
 */
export function isPlainMemoryFile(name: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  return isMemoryFileName(name) && !/[\\/\u0000-\u001f]/.test(name) && name !== '..';
}

/**
 * A memory file's text, read through core's confinement rule (inside memory/, a regular file,
 * at most {@link MAX_MEMORY_BYTES}); undefined when it does not exist. Every reader of a memory's
 * bytes goes through here.
 */
export function readMemoryText(memoryDir: string, file: string): string | undefined {
  return readConfined(join(memoryDir, file), { root: memoryDir, maxBytes: MAX_MEMORY_BYTES });
}

/** Whether a name in memory/ is a memory file (`.md`, not hidden); temp files are not. */
export function isMemoryFileName(name: string): boolean {
  return name.endsWith('.md') && !name.startsWith('.');
}

/**
 * Reads one file's frontmatter into an entry, or a problem when the file is unusable. Opened
 * through core's confinement rule: a symlink is followed only while its target stays inside
 * memory/, and a FIFO or device is never read.
 */
export function readMemoryEntry(memoryDir: string, file: string): MemoryEntry | MemoryProblem {
  let opened: ReturnType<typeof openConfined>;
  try {
    opened = openConfined(join(memoryDir, file), { root: memoryDir });
  } catch (error) {
    if (error instanceof UnsafeFileError) {
      const why = error.message.replace(/^refused [^:]*: /, '');
      return {
        file,
        problem: /outside|nowhere/.test(why) ? 'symlink whose target is outside memory/' : why,
      };
    }
    return {
      file,
      problem: `unreadable: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    };
  }
  if (!opened) return { file, problem: 'unreadable: ENOENT' };
  const { fd, stats } = opened;
  try {
    if (!stats.isFile()) return { file, problem: 'not a regular file' };
    const { size, mtimeMs: mtime } = stats;
    if (size > MAX_MEMORY_BYTES) return { file, problem: `too large (${size} bytes > ${MAX_MEMORY_BYTES})` };
    let head = readHead(fd, Math.min(size, HEAD_BYTES));
    if (head === undefined) return { file, problem: 'unreadable' };
    if (head.includes('\u0000')) return { file, problem: 'binary content' };
    if (file === INDEX_FILE) return entryFrom(file, mtime, size, { type: 'index', name: 'Memory index' });
    // A frontmatter longer than the head: read the whole file before calling it unclosed.
    if (size > HEAD_BYTES && unclosedFrontmatter(head)) head = readHead(fd, size) ?? head;
    if (unclosedFrontmatter(head)) return { file, problem: 'frontmatter never closes (no second --- line)' };
    const fm = readFrontmatter(head);
    if (fm.error) return { file, problem: fm.error };
    return entryFrom(file, mtime, size, fm.data);
  } finally {
    closeSync(fd);
  }
}

function readHead(fd: number, bytes: number): string | undefined {
  try {
    const buffer = Buffer.alloc(bytes);
    const read = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, read).toString('utf8');
  } catch {
    return undefined;
  }
}

function entryFrom(file: string, mtimeMs: number, size: number, data: Record<string, unknown>): MemoryEntry {
  const fields: Record<string, string> = {};
  const listFields: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      fields[key.toLowerCase()] = String(value).toLowerCase();
    } else if (value instanceof Date) {
      // YAML turns `date: 2026-11-20` into a Date; facets compare the day as written.
      fields[key.toLowerCase()] = Number.isNaN(value.getTime()) ? '' : value.toISOString().slice(0, 10);
    } else if (Array.isArray(value) && key !== 'tags' && key !== 'applies_to') {
      listFields[key.toLowerCase()] = listOf(value).map((v) => v.toLowerCase());
    }
  }
  return {
    file,
    mtimeMs,
    size,
    name: stringOr(data.name, file.replace(/\.md$/, '')),
    type: stringOr(data.type, 'unknown').toLowerCase(),
    description: stringOr(data.description, ''),
    tags: listOf(data.tags),
    appliesTo: listOf(data.applies_to),
    fields,
    listFields,
  };
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : fallback;
}

function listOf(value: unknown): string[] {
  if (Array.isArray(value))
    return value.filter((v) => typeof v === 'string' || typeof v === 'number').map(String);
  if (typeof value === 'string') {
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  }
  return [];
}

export function isProblem(value: MemoryEntry | MemoryProblem): value is MemoryProblem {
  return 'problem' in value;
}
