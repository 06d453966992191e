import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join, relative, sep } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { unpackTar } from 'modern-tar';
import { UserError } from '../../../core/index.js';
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

/** How deep a folder of notes is searched, and how many notes at most. */
const MAX_DEPTH = 12;
const MAX_NOTES = 20_000;

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

/**
 * A folder of markdown notes (basic-memory, Obsidian, Claude Code's auto-memory): every `.md`
 * file below it, hidden folders and `node_modules` aside; an index file (`MEMORY.md`) is not a
 * note. Each note is read as text; mapping it to a memory is the plan's work.
 */
export function readNoteFolder(path: string, kind: 'folder' | 'claude' = 'folder'): ImportSource {
  const candidates: Candidate[] = [];
  const ignored: string[] = [];
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (error) {
      ignored.push(
        `${relative(path, dir) || '.'} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`,
      );
      return;
    }
    for (const name of names) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      const full = join(dir, name);
      const rel = relative(path, full).split(sep).join('/');
      let st: ReturnType<typeof statSync>;
      try {
        st = statSync(full);
      } catch {
        ignored.push(`${rel} (unreadable)`);
        continue;
      }
      if (st.isDirectory()) {
        if (depth < MAX_DEPTH) walk(full, depth + 1);
        continue;
      }
      if (extname(name).toLowerCase() !== '.md' || name === INDEX_FILE) {
        ignored.push(rel);
        continue;
      }
      if (candidates.length >= MAX_NOTES) {
        ignored.push(`${rel} (more than ${MAX_NOTES} notes)`);
        continue;
      }
      const folder = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
      if (st.size > MAX_MEMORY_BYTES) {
        candidates.push({ source: rel, folder, problem: `larger than ${MAX_MEMORY_BYTES} bytes` });
        continue;
      }
      candidates.push({ source: rel, folder, text: readFileSync(full, 'utf8') });
    }
  };
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
  walk(path, 0);
  return { kind, path, candidates, ignored };
}
