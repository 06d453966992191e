import { closeSync, fstatSync, readSync } from 'node:fs';
import { writeFileAtomicallySync } from '../../core/index.js';
import type { MemoryEntry, MemoryProblem } from './entries.js';
import { openForRanges, readRange } from './file-range.js';
import { TabList } from './tab-list.js';

/** memory/'s entries as of its mtime (cache/memory-entries.json), and the files that could not be read. */
export interface PersistedEntries {
  dirMtimeMs: number;
  entries: MemoryEntry[];
  problems: (MemoryProblem & { mtimeMs?: number; size?: number })[];
}

/** The cache's name in cache/. */
export const ENTRIES_FILE = 'memory-entries.json';

/** Bump when the layout or MemoryEntry changes: an older cache is then ignored (memory/ is rescanned). */
export const ENTRIES_FORMAT = 3;

/**
 * Line 1: `{"format","dirMtimeMs","problems","ends"}`; line 2 the files in sorted order, each as
 * a JSON string, separated by tabs (a JSON string holds no raw tab); every further line one
 * entry as JSON, in that order, `ends` saying where each starts (from line 3; one more for where
 * the last ends). A server reads it whole; a one-shot recall (LazyEntries) reads lines 1 and 2
 * and then only the entries its results name, found by bisection.
 */
interface EntriesHead {
  format: number;
  dirMtimeMs: number;
  problems: PersistedEntries['problems'];
  ends: number[];
}

/** Writes the cache atomically (temp file and rename). */
export function writeEntries(file: string, data: PersistedEntries): void {
  // A scan lists memory/ sorted; readers find a file by bisection, so make sure of it.
  const entries = data.entries.every((entry, i, all) => i === 0 || all[i - 1]!.file < entry.file)
    ? data.entries
    : [...data.entries].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const lines = entries.map((entry) => `${JSON.stringify(entry)}\n`);
  const ends = [0];
  for (const line of lines) ends.push(ends[ends.length - 1]! + Buffer.byteLength(line));
  const head: EntriesHead = {
    format: ENTRIES_FORMAT,
    dirMtimeMs: data.dirMtimeMs,
    problems: data.problems,
    ends,
  };
  const files = TabList.join(
    entries.map((entry) => entry.file),
    (name) => JSON.stringify(name),
  );
  writeFileAtomicallySync(file, [`${JSON.stringify(head)}\n`, `${files}\n`, ...lines].join(''));
}

/** Reads the whole cache, or undefined when there is none, it is damaged, or of another format. */
export function readEntries(file: string): PersistedEntries | undefined {
  const lazy = LazyEntries.open(file);
  if (!lazy) return undefined;
  try {
    return { dirMtimeMs: lazy.dirMtimeMs, entries: lazy.all(), problems: lazy.problems };
  } catch {
    return undefined;
  } finally {
    lazy.close();
  }
}

/**
 * The cache read an entry at a time: line 1 first, then each entry when asked for it (a read at
 * its offset), or all of them at once. The file stays open until close().
 */
export class LazyEntries {
  readonly dirMtimeMs: number;
  readonly problems: PersistedEntries['problems'];
  private readonly fd: number;
  /** Where entry i's line starts, from line 2; ends[i + 1] where it ends. */
  private readonly ends: readonly number[];
  private readonly start: number;
  private readonly parsed = new Map<string, MemoryEntry>();
  private readonly files: TabList;

  private constructor(fd: number, head: EntriesHead, files: TabList, start: number) {
    this.fd = fd;
    this.dirMtimeMs = head.dirMtimeMs;
    this.problems = head.problems;
    this.files = files;
    this.ends = head.ends;
    this.start = start;
  }

  /** Opens the cache, or undefined when there is none, it is damaged (cut short), or of another format. */
  static open(file: string): LazyEntries | undefined {
    const fd = openForRanges(file);
    if (fd === undefined) return undefined;
    try {
      const first = readLine(fd, 0);
      const head = JSON.parse(first.line) as Partial<EntriesHead>;
      const { ends, problems } = head;
      if (
        head.format !== ENTRIES_FORMAT ||
        typeof head.dirMtimeMs !== 'number' ||
        !Array.isArray(ends) ||
        !Array.isArray(problems)
      )
        throw new Error('not an entry cache');
      const second = readLine(fd, first.end);
      const files = new TabList(second.line, decodeName);
      if (ends.length !== files.length + 1 || second.end + ends[files.length]! !== fstatSync(fd).size)
        throw new Error('cut short');
      return new LazyEntries(fd, head as EntriesHead, files, second.end);
    } catch {
      closeSync(fd);
      return undefined;
    }
  }

  get(file: string): MemoryEntry | undefined {
    let entry = this.parsed.get(file);
    if (entry) return entry;
    const i = this.indexOf(file);
    if (i < 0) return undefined;
    entry = JSON.parse(this.read(this.start + this.ends[i]!, this.start + this.ends[i + 1]!)) as MemoryEntry;
    this.parsed.set(file, entry);
    return entry;
  }

  /** Every entry, in order (one read). */
  all(): MemoryEntry[] {
    // JSON.stringify escapes newlines inside strings: each line is one entry.
    const lines = this.read(this.start, this.start + this.ends[this.files.length]!).split('\n');
    return [...this.files].map((file, i) => {
      let entry = this.parsed.get(file);
      if (!entry) {
        entry = JSON.parse(lines[i]!) as MemoryEntry;
        this.parsed.set(file, entry);
      }
      return entry;
    });
  }

  private indexOf(file: string): number {
    return this.files.indexOf(file);
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // closed already
    }
  }

  private read(from: number, to: number): string {
    return readRange(this.fd, from, to);
  }
}

/** A file name as line 2 holds it: a JSON string, most often a plain one with nothing escaped. */
function decodeName(text: string): string {
  return text.includes('\\') ? (JSON.parse(text) as string) : text.slice(1, -1);
}

/** The line of an open file that starts at `from` (without its newline), and the offset after it. */
function readLine(fd: number, from: number): { line: string; end: number } {
  const chunks: Buffer[] = [];
  let position = from;
  for (let size = 64 * 1024; ; size *= 2) {
    const buffer = Buffer.allocUnsafe(size);
    const n = readSync(fd, buffer, 0, size, position);
    const eol = buffer.subarray(0, n).indexOf(10);
    if (eol >= 0) {
      chunks.push(buffer.subarray(0, eol));
      const line = Buffer.concat(chunks);
      return { line: line.toString('utf8'), end: from + line.length + 1 };
    }
    if (n === 0) throw new Error('no line 1');
    chunks.push(buffer.subarray(0, n));
    position += n;
  }
}
