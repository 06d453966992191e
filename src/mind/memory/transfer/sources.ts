import { type Dirent, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { opendir } from 'node:fs/promises';
import { basename, extname, join, relative, sep } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { unpackTar } from 'modern-tar';
import { FileTooLargeError, readConfined, UnsafeFileError, UserError } from '../../../core/index.js';
import { INDEX_FILE, MAX_MEMORY_BYTES } from '../entries.js';
import { findIndexLine } from '../remember.js';
import type { ExportHeader, ExportRecord } from './export.js';

/** Where memories are imported from. */
export type ImportKind = 'export' | 'folder' | 'claude';

/**
 * One file offered for import. An `export` candidate carries the exact text a firstlight export
 * holds (written back byte for byte); a note from a folder carries its text as read, mapped to a
 * memory by the plan.
 */
export interface Candidate {
  /** Where it came from, for the table: a path relative to the source, or the export's file name. */
  source: string;
  /** The file's text; undefined when it could not be read (then `problem` says why). */
  text?: string;
  problem?: string;
  /** An export's own file name and MEMORY.md line. */
  file?: string;
  indexLine?: string;
  /** Folder notes: the note's subfolder (`people/ana.md` → `people`), a hint for its type. */
  folder?: string;
}

export interface ImportSource {
  kind: ImportKind;
  /** What was read: the file or directory. */
  path: string;
  candidates: Candidate[];
  /** The export's MEMORY.md heading (to start an empty home's index with). */
  indexHeader?: string;
  /** Files left aside without being offered (not markdown, the source's own index). */
  ignored: string[];
}

/** A JSONL export (`memory export`), as written: a header line, then one record a memory. */
export function readJsonlExport(path: string): ImportSource {
  const lines = readFileSync(path, 'utf8').split('\n');
  let header: ExportHeader | undefined;
  const candidates: Candidate[] = [];
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      candidates.push({ source: `line ${i + 1}`, problem: 'not a JSON line' });
      continue;
    }
    if (i === 0 && (parsed as ExportHeader)?.firstlight_memory_export === 1) {
      header = parsed as ExportHeader;
      continue;
    }
    const r = parsed as Partial<ExportRecord>;
    if (typeof r.file !== 'string' || typeof r.text !== 'string') {
      candidates.push({
        source: `line ${i + 1}`,
        problem: 'a record needs file and text (see docs/memory.md)',
      });
      continue;
    }
    candidates.push({
      source: r.file,
      file: r.file,
      text: r.text,
      ...(typeof r.index_line === 'string' ? { indexLine: r.index_line } : {}),
    });
  }
  if (!header) {
    throw new UserError(
      `${path} is not a firstlight memory export (its first line has no firstlight_memory_export)`,
      {
        code: 'INVALID_ARGUMENT',
        hint: 'import a file written by `firstlight memory export`, a .tar(.gz) of one, or a folder of markdown notes',
      },
    );
  }
  return { kind: 'export', path, candidates, indexHeader: header.index_header, ignored: [] };
}

/** A tarball export (`memory export --format tar`): its markdown files and MEMORY.md, under any one folder. */
export async function readTarExport(path: string): Promise<ImportSource> {
  let bytes: Buffer = readFileSync(path);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
  const entries = await unpackTar(new Uint8Array(bytes));
  const candidates: Candidate[] = [];
  const ignored: string[] = [];
  let indexText: string | undefined;
  for (const entry of entries) {
    const name = entry.header.name;
    if ((entry.header.type ?? 'file') !== 'file' || !entry.data) continue;
    const file = basename(name);
    const text = Buffer.from(entry.data).toString('utf8');
    if (file === INDEX_FILE) indexText = text;
    else if (file.endsWith('.md') && !file.startsWith('.')) candidates.push({ source: name, file, text });
    else ignored.push(name);
  }
  const lines = (indexText ?? '').split('\n');
  for (const c of candidates) {
    const at = findIndexLine(lines, (_title, file) => file === c.file);
    if (at) c.indexLine = lines[at.index];
  }
  const first = findIndexLine(lines, () => true);
  const indexHeader =
    indexText === undefined ? undefined : first ? lines.slice(0, first.index).join('\n') : indexText;
  return { kind: 'export', path, candidates, ...(indexHeader !== undefined ? { indexHeader } : {}), ignored };
}

/** How far a folder walk may go before it stops with an error naming the flag to raise. */
export interface WalkLimits {
  /** Folder levels below the source (`--max-depth`). */
  maxDepth: number;
  /** Entries looked at, files and folders (`--max-files`). */
  maxFiles: number;
  /** Bytes of notes read (`--max-bytes`). */
  maxBytes: number;
  /** Seconds the walk may take (`--max-seconds`). */
  maxSeconds: number;
  /** Aborted by SIGTERM / SIGINT: the walk stops at its next entry. */
  signal?: AbortSignal;
}

export const DEFAULT_WALK_LIMITS: WalkLimits = {
  maxDepth: 12,
  maxFiles: 100_000,
  maxBytes: 256 * 1024 * 1024,
  maxSeconds: 120,
};

/** How many notes at most (each becomes a memory). */
const MAX_NOTES = 20_000;

function walkStopped(path: string, what: string, flag: string): UserError {
  return new UserError(`stopped reading ${path}: ${what}`, {
    code: 'IMPORT_TOO_LARGE',
    hint: `import a smaller folder, or raise ${flag}; nothing was written`,
  });
}

/**
 * A folder of markdown notes (basic-memory, Obsidian, Claude Code's auto-memory): every `.md`
 * file below it, hidden folders and `node_modules` aside; an index file (`MEMORY.md`) is not a
 * note. The walk never follows a link: a symlink (to a file or a folder) is listed as refused
 * with its target, as is anything that is not a regular file; each note is opened through
 * core's confinement rule. The walk is bounded ({@link WalkLimits}) and stops with an error
 * naming the flag to raise; an aborted `signal` stops it at the next entry.
 */
export async function readNoteFolder(
  path: string,
  kind: 'folder' | 'claude' = 'folder',
  limits: WalkLimits = DEFAULT_WALK_LIMITS,
): Promise<ImportSource> {
  let st: ReturnType<typeof statSync> | undefined;
  try {
    st = statSync(path);
  } catch {
    st = undefined;
  }
  if (!st?.isDirectory()) {
    throw new UserError(`${path} is not a directory`, {
      code: 'NOT_FOUND',
      hint: "give a folder of markdown notes, a .jsonl or .tar(.gz) export, or `claude` for Claude Code's auto-memory",
    });
  }
  // The folder the user named may itself be a link (a synced vault); nothing below it may.
  const root = realpathSync.native(path);
  const candidates: Candidate[] = [];
  const ignored: string[] = [];
  const deadline = Date.now() + limits.maxSeconds * 1000;
  let seen = 0;
  let bytes = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    let handle: Awaited<ReturnType<typeof opendir>>;
    try {
      handle = await opendir(dir);
    } catch (error) {
      ignored.push(
        `${relative(root, dir) || '.'} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
      );
      return;
    }
    const entries: Dirent[] = [];
    for await (const entry of handle) {
      if (limits.signal?.aborted) throw interrupted(path, limits.signal);
      if (++seen > limits.maxFiles)
        throw walkStopped(path, `more than ${limits.maxFiles} entries`, '--max-files');
      if (Date.now() > deadline)
        throw walkStopped(path, `still walking after ${limits.maxSeconds} s`, '--max-seconds');
      entries.push(entry);
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const name = entry.name;
      if (name.startsWith('.') || name === 'node_modules') continue;
      const full = join(dir, name);
      const rel = relative(root, full).split(sep).join('/');
      const folder = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
      if (entry.isSymbolicLink()) {
        candidates.push({
          source: rel,
          folder,
          problem: `a symlink (to ${linkTarget(full)}); imports never follow links`,
        });
        continue;
      }
      if (entry.isDirectory()) {
        if (depth >= limits.maxDepth)
          throw walkStopped(path, `${rel} is deeper than ${limits.maxDepth} levels`, '--max-depth');
        await walk(full, depth + 1);
        continue;
      }
      if (extname(name).toLowerCase() !== '.md' || name === INDEX_FILE) {
        ignored.push(rel);
        continue;
      }
      if (!entry.isFile()) {
        candidates.push({ source: rel, folder, problem: 'not a regular file (a FIFO, socket or device)' });
        continue;
      }
      if (candidates.length >= MAX_NOTES) {
        ignored.push(`${rel} (more than ${MAX_NOTES} notes)`);
        continue;
      }
      try {
        const text = readConfined(full, { root, maxBytes: MAX_MEMORY_BYTES });
        if (text === undefined) continue; // removed while walking
        bytes += Buffer.byteLength(text);
        if (bytes > limits.maxBytes)
          throw walkStopped(path, `more than ${limits.maxBytes} bytes of notes`, '--max-bytes');
        candidates.push({ source: rel, folder, text });
      } catch (error) {
        if (error instanceof FileTooLargeError)
          candidates.push({ source: rel, folder, problem: `larger than ${MAX_MEMORY_BYTES} bytes` });
        else if (error instanceof UnsafeFileError)
          candidates.push({ source: rel, folder, problem: error.message.replace(/^refused [^:]*: /, '') });
        else throw error;
      }
    }
  };
  await walk(root, 0);
  return { kind, path, candidates, ignored };
}

function interrupted(path: string, signal: AbortSignal): UserError {
  const why = typeof signal.reason === 'string' ? signal.reason : 'a signal';
  return new UserError(`stopped reading ${path}: interrupted by ${why}`, {
    code: 'INTERRUPTED',
    hint: 'nothing was written; run it again to import',
  });
}

function linkTarget(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return 'somewhere unreadable';
  }
}
