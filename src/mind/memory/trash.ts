import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import {
  homePaths,
  mtimeMs,
  NotFoundError,
  UserError,
  withFileLock,
  writeConfined,
} from '../../core/index.js';
import { INDEX_FILE, isPlainMemoryFile, isProblem, readMemoryEntry } from './entries.js';
import {
  appendOnce,
  findIndexLine,
  INDEX_HEADER,
  isOwnIndexLine,
  readIndex,
  unescapeTitle,
  writeIndex,
} from './remember.js';
import { MemoryStore } from './store.js';

/** Where forgotten memories go: hidden inside memory/, so no listing or index sees them. */
export const TRASH_DIR = '.trash';

/** What a forgotten memory's sidecar (`.trash/<file>.json`) records, so restore can undo it. */
export interface TrashRecord {
  /** The memory's file name in memory/ before it was forgotten (and after restore). */
  file: string;
  /** Its name in the trash (the same, or `<stem>~N.md` when an older copy is there). */
  trashed_as: string;
  name: string;
  type: string;
  /** Its MEMORY.md line, verbatim; null when it had none. */
  index_line: string | null;
  /** The line that followed it, so restore puts it back in its place. */
  index_next: string | null;
  forgotten_at: string;
}

export interface ForgetResult {
  name: string;
  type: string;
  file: string;
  trashed_as: string;
  index_line_removed: boolean;
}

export interface RestoreResult {
  name: string;
  type: string;
  file: string;
  index_line_restored: boolean;
}

export interface TrashOptions {
  now?: Date;
  /** The caller's view of memory/ (a server's store); a one-shot caller gets one on the home's cache. */
  store?: MemoryStore;
}

/**
 * Resolves what a user or model calls a memory to its file: the file name (`.md` optional), else
 * its frontmatter `name`, else its MEMORY.md title (all case-insensitive past the file name).
 * Never MEMORY.md itself, never a path.
 */
export function memoryFileFor(memoryDir: string, store: MemoryStore, requested: string): string {
  const wanted = String(requested ?? '').trim();
  if (wanted === '') {
    throw new UserError('name is empty', {
      code: 'INVALID_ARGUMENT',
      hint: 'name: a memory name or file name, as `firstlight memory list` (MCP: list_memory_files) shows it',
    });
  }
  if (/[\\/]/.test(wanted)) {
    throw new UserError(`"${requested}" is not a memory name`, {
      code: 'INVALID_ARGUMENT',
      hint: 'name: a memory name or a file name inside memory/, without a path',
    });
  }
  const asFile = wanted.endsWith('.md') ? wanted : `${wanted}.md`;
  // A hidden name is never a memory file (temp files, .trash/), but may be a memory's name.
  if (asFile !== INDEX_FILE && !asFile.startsWith('.') && isFile(join(memoryDir, asFile))) return asFile;
  const named = store.fileNamed(wanted);
  if (named && isPlainMemoryFile(named) && isFile(join(memoryDir, named))) return named;
  const lines = (readIndex(memoryDir) ?? '').split('\n');
  const lower = wanted.toLowerCase();
  const byTitle = findIndexLine(lines, (title) => unescapeTitle(title).toLowerCase() === lower);
  if (byTitle && byTitle.file !== INDEX_FILE && isFile(join(memoryDir, byTitle.file))) return byTitle.file;
  throw new NotFoundError(
    `no memory named "${requested}"`,
    'see the names with `firstlight memory list` (MCP: list_memory_files); a forgotten one is listed by `firstlight memory list --forgotten`',
  );
}

/**
 * Forgets a memory: its MEMORY.md line is removed (MEMORY.md rewritten atomically) and its file
 * moved, byte for byte, to `memory/.trash/`, beside a sidecar that lets {@link restoreMemory}
 * undo both. Under the same cross-process lock as `remember`. The sidecar is written first and
 * the file moved last: a process killed in between leaves the memory where it was (perhaps
 * without its index line, as a killed `remember` can) and a sidecar without a file, which
 * nothing lists.
 */
export async function forgetMemory(
  home: string,
  requested: string,
  options: TrashOptions = {},
): Promise<ForgetResult> {
  const paths = homePaths(home);
  const store = storeFor(home, options);
  return withFileLock(paths.memory, async () => {
    const file = memoryFileFor(paths.memory, store, requested);
    const dirMtimeBefore = mtimeMs(paths.memory) ?? Number.NaN;
    const entry = readMemoryEntry(paths.memory, file);
    const name = isProblem(entry) ? file.replace(/\.md$/, '') : entry.name;
    const type = isProblem(entry) ? 'unknown' : entry.type;
    const trash = join(paths.memory, TRASH_DIR);
    mkdirSync(trash, { recursive: true });
    const trashedAs = freeTrashName(trash, file);
    const indexText = readIndex(paths.memory);
    const lines = indexText?.split('\n') ?? [];
    const at = findIndexLine(lines, (_title, lineFile) => lineFile === file);
    const record: TrashRecord = {
      file,
      trashed_as: trashedAs,
      name,
      type,
      index_line: at ? lines[at.index]! : null,
      index_next: at ? (lines[at.index + 1] ?? null) : null,
      forgotten_at: (options.now ?? new Date()).toISOString(),
    };
    await writeConfined(join(trash, `${trashedAs}.json`), `${JSON.stringify(record, null, 2)}\n`, {
      root: trash,
    });
    if (at) {
      lines.splice(at.index, 1);
      await writeIndex(paths.memory, lines.join('\n'));
    }
    renameSync(join(paths.memory, file), join(trash, trashedAs));
    store.noteWritten([file, INDEX_FILE], dirMtimeBefore);
    return { name, type, file, trashed_as: trashedAs, index_line_removed: at !== undefined };
  });
}

/**
 * Puts a forgotten memory back: the file returns byte for byte under its old name and its
 * MEMORY.md line is re-added where it was (before the line that followed it, else at the end).
 * Refused when a memory now holds its file name or its name.
 */
export async function restoreMemory(
  home: string,
  requested: string,
  options: TrashOptions = {},
): Promise<RestoreResult> {
  const paths = homePaths(home);
  const store = storeFor(home, options);
  return withFileLock(paths.memory, async () => {
    const record = trashRecordFor(home, requested);
    const trash = join(paths.memory, TRASH_DIR);
    const target = join(paths.memory, record.file);
    if (existsSync(target)) {
      throw new UserError(
        `a memory file ${record.file} exists again; "${record.name}" cannot be restored over it`,
        {
          code: 'MEMORY_EXISTS',
          hint: `forget or rename the current ${record.file} first (firstlight memory forget ${record.file})`,
        },
      );
    }
    const holder = store.fileNamed(record.name);
    if (holder && isFile(join(paths.memory, holder))) {
      throw new UserError(`a memory named "${record.name}" exists again (${holder})`, {
        code: 'MEMORY_EXISTS',
        hint: `forget or rename ${holder} first, then restore`,
      });
    }
    const dirMtimeBefore = mtimeMs(paths.memory) ?? Number.NaN;
    renameSync(join(trash, record.trashed_as), target);
    let restoredLine = false;
    if (record.index_line !== null) {
      const indexText = readIndex(paths.memory) ?? '';
      const lines = indexText.split('\n');
      if (!findIndexLine(lines, (_title, lineFile) => lineFile === record.file)) {
        const next = record.index_next === null ? -1 : lines.indexOf(record.index_next);
        if (next >= 0 && record.index_next !== '') {
          lines.splice(next, 0, record.index_line);
          await writeIndex(paths.memory, lines.join('\n'));
        } else {
          const prefix = indexText === '' ? INDEX_HEADER : indexText.endsWith('\n') ? '' : '\n';
          appendOnce(paths.memoryIndex, `${prefix}${record.index_line}\n`);
        }
        restoredLine = true;
      }
    }
    unlinkSync(join(trash, `${record.trashed_as}.json`));
    store.noteWritten([record.file, INDEX_FILE], dirMtimeBefore);
    return { name: record.name, type: record.type, file: record.file, index_line_restored: restoredLine };
  });
}

/** The forgotten memories that can be restored, newest first. */
export function listForgotten(home: string): TrashRecord[] {
  const trash = join(homePaths(home).memory, TRASH_DIR);
  let names: string[];
  try {
    names = readdirSync(trash);
  } catch {
    return [];
  }
  const records: TrashRecord[] = [];
  for (const sidecar of names) {
    if (!sidecar.endsWith('.md.json')) continue;
    try {
      const record = JSON.parse(readFileSync(join(trash, sidecar), 'utf8')) as TrashRecord;
      // A sidecar whose file is not there: a forget killed before its move. Nothing to restore.
      // A sidecar naming a path (hand-edited) is not ours: restore never moves a file out of memory/.
      if (
        typeof record.trashed_as === 'string' &&
        typeof record.file === 'string' &&
        isPlainMemoryFile(record.file) &&
        isPlainMemoryFile(record.trashed_as) &&
        (record.index_line === null || isOwnIndexLine(record.index_line, record.file)) &&
        isFile(join(trash, record.trashed_as))
      )
        records.push(record);
    } catch {
      // A hand-edited or torn sidecar: that memory stays in the trash, listed by no one.
    }
  }
  // Newest first; within one millisecond, the later copy of a file (`~N`) first.
  return records.sort((a, b) =>
    a.forgotten_at < b.forgotten_at ? 1 : a.forgotten_at > b.forgotten_at ? -1 : copyOf(b) - copyOf(a),
  );
}

/** The newest forgotten memory called `requested` (file name, `.md` optional, or its name). */
function trashRecordFor(home: string, requested: string): TrashRecord {
  const wanted = String(requested ?? '')
    .trim()
    .toLowerCase();
  const asFile = wanted.endsWith('.md') ? wanted : `${wanted}.md`;
  const found = listForgotten(home).find(
    (r) =>
      r.file.toLowerCase() === asFile ||
      r.trashed_as.toLowerCase() === asFile ||
      r.name.toLowerCase() === wanted,
  );
  if (!found) {
    throw new NotFoundError(
      `no forgotten memory named "${requested}"`,
      'see what can be restored with `firstlight memory list --forgotten`',
    );
  }
  return found;
}

/** Which copy of its file a trashed memory is: 1, or N for `<stem>~N.md`. */
function copyOf(record: TrashRecord): number {
  return Number(/~(\d+)\.md$/.exec(record.trashed_as)?.[1] ?? 1);
}

/** `file`, or `<stem>~2.md`, `<stem>~3.md`, …: the first name the trash does not hold. */
function freeTrashName(trash: string, file: string): string {
  let candidate = file;
  for (let n = 2; existsSync(join(trash, candidate)) || existsSync(join(trash, `${candidate}.json`)); n++) {
    candidate = `${file.replace(/\.md$/, '')}~${n}.md`;
  }
  return candidate;
}

function storeFor(home: string, options: TrashOptions): MemoryStore {
  const paths = homePaths(home);
  return (
    options.store ?? new MemoryStore(paths.memory, { cacheFile: join(paths.cache, 'memory-entries.json') })
  );
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
