import { gzipSync } from 'node:zlib';
import { packTar } from 'modern-tar';
import { parseFrontmatter } from '../../../core/index.js';
import { INDEX_FILE, type MemoryEntry, readMemoryText } from '../entries.js';
import { findIndexLine, readIndex } from '../remember.js';
import type { MemoryStore } from '../store.js';

/** The first line of a JSONL export. */
export interface ExportHeader {
  firstlight_memory_export: 1;
  exported_at: string;
  count: number;
  /** MEMORY.md before its first memory line (the heading), so an import into an empty home rebuilds it. */
  index_header: string;
}

/** One memory in a JSONL export: its exact text, and the same split for other tools to read. */
export interface ExportRecord {
  file: string;
  frontmatter: Record<string, unknown>;
  body: string;
  /** The file's bytes as UTF-8, verbatim: what an import writes back. */
  text: string;
  /** Its MEMORY.md line, when it has one. */
  index_line?: string;
}

export type ExportFormat = 'jsonl' | 'tar' | 'tar.gz';

export interface ExportResult {
  data: Buffer;
  format: ExportFormat;
  count: number;
  files: string[];
}

/** The directory a tarball export holds the files under. */
export const TAR_DIR = 'memory';

/**
 * Every memory (or those `only` keeps), in MEMORY.md's order, as JSONL (a header line, then
 * one record a memory) or as a tarball of the markdown files and MEMORY.md (`memory/…`,
 * gzipped for `tar.gz`). Files are read as bytes and written back as bytes by `importMemories`.
 */
export async function exportMemories(
  store: MemoryStore,
  options: { format: ExportFormat; only?: (entry: MemoryEntry) => boolean; now?: Date },
): Promise<ExportResult> {
  const snapshot = store.snapshot();
  const entries = snapshot.entries.filter((e) => e.type !== 'index' && (options.only?.(e) ?? true));
  const indexText = readIndex(store.memoryDir) ?? '';
  const indexLines = indexText.split('\n');
  // MEMORY.md's order first (an import into an empty home then writes the same index), then
  // memories without an index line, by file name.
  const position = new Map<string, number>();
  indexLines.forEach((line, i) => {
    const m = /^\s*[-*]\s+\[(?:\\.|[^\]\\])*\]\(([^)]+)\)/.exec(line);
    if (m && !position.has(m[1]!)) position.set(m[1]!, i);
  });
  const rank = (file: string) => position.get(file) ?? Number.MAX_SAFE_INTEGER;
  entries.sort((a, b) => rank(a.file) - rank(b.file) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const records: ExportRecord[] = [];
  for (const entry of entries) {
    const text = readMemoryText(store.memoryDir, entry.file);
    if (text === undefined) continue; // forgotten since the snapshot
    const fm = parseFrontmatter(text);
    const at = findIndexLine(indexLines, (_title, file) => file === entry.file);
    records.push({
      file: entry.file,
      frontmatter: fm.data,
      body: fm.body,
      text,
      ...(at ? { index_line: indexLines[at.index] } : {}),
    });
  }
  const files = records.map((r) => r.file);
  if (options.format === 'jsonl') {
    const header: ExportHeader = {
      firstlight_memory_export: 1,
      exported_at: (options.now ?? new Date()).toISOString(),
      count: records.length,
      index_header: indexHeaderOf(indexText),
    };
    const lines = [header, ...records].map((r) => JSON.stringify(r));
    return { data: Buffer.from(`${lines.join('\n')}\n`), format: 'jsonl', count: records.length, files };
  }
  const index = [indexHeaderOf(indexText), ...records.flatMap((r) => (r.index_line ? [r.index_line] : []))];
  const mtime = options.now ?? new Date();
  const tar = await packTar([
    ...records.map((r) => {
      const body = Buffer.from(r.text);
      return { header: { name: `${TAR_DIR}/${r.file}`, size: body.length, mtime, mode: 0o644 }, body };
    }),
    ...(indexText === ''
      ? []
      : [
          (() => {
            const body = Buffer.from(`${index.join('\n').replace(/\n*$/, '')}\n`);
            return {
              header: { name: `${TAR_DIR}/${INDEX_FILE}`, size: body.length, mtime, mode: 0o644 },
              body,
            };
          })(),
        ]),
  ]);
  const data = options.format === 'tar.gz' ? gzipSync(tar) : Buffer.from(tar);
  return { data, format: options.format, count: records.length, files };
}

/** MEMORY.md up to its first `- [Title](file)` line: the heading an import into an empty home writes. */
export function indexHeaderOf(indexText: string): string {
  const lines = indexText.split('\n');
  const first = findIndexLine(lines, () => true);
  return first ? lines.slice(0, first.index).join('\n') : indexText;
}
