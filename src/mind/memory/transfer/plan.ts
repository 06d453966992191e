import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import {
  homePaths,
  noteRedactions,
  parseFrontmatter,
  type RedactionCounts,
  type Redactor,
  redactorFor,
  renderFrontmatter,
  UnsafeFileError,
  UserError,
  withFileLock,
  writeConfined,
} from '../../../core/index.js';
import { checkMemoryText } from '../edit.js';
import { readMemoryText } from '../entries.js';
import { bodyOf } from '../fast-frontmatter.js';
import { indexTitle, oneLine } from '../names.js';
import { appendOnce, INDEX_HEADER, isOwnIndexLine, readIndex } from '../remember.js';
import type { ProjectRef } from '../scope.js';
import type { MemoryStore } from '../store.js';
import { mapNote } from './map-note.js';
import type { ImportKind, ImportSource } from './sources.js';

/** What an import does with one file: writes it, leaves it as a duplicate, or refuses it. */
export type ImportAction = 'add' | 'duplicate' | 'refused';

/** One row of the import table. */
export interface ImportRow {
  source: string;
  action: ImportAction;
  /** The memory file it becomes (add), matches (duplicate) or collides with (refused). */
  file: string | null;
  name: string | null;
  type: string | null;
  /** Why: the duplicate it matches, the problem that refused it; for an add, what it was mapped from. */
  reason: string;
  /** What the redactor took out of it before writing, by kind. */
  redacted?: RedactionCounts;
}

/** A file the import will write, and its MEMORY.md line (none for an export's file that had none, as carry_forward.md). */
interface PlannedWrite {
  file: string;
  text: string;
  indexLine: string | undefined;
}

/** The whole import, decided before anything is written (the dry run prints it; --apply executes it). */
export interface ImportPlan {
  kind: ImportKind;
  path: string;
  rows: ImportRow[];
  counts: Record<ImportAction, number>;
  /** Files in the source that were not offered (not markdown, the source's own index). */
  ignored: string[];
  writes: PlannedWrite[];
  indexHeader?: string;
}

/** A file name an export may carry: what fileNameFor makes, or a hand-named note; never a path. */
const SAFE_FILE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,150}\.md$/;

/**
 * Decides, for every candidate of `source`, whether importing it into `store`'s memory/ adds a
 * memory, skips a duplicate (the same file with the same bytes, or another memory with the same
 * body), or refuses it (a name another memory holds with other content, bad frontmatter, an
 * empty or binary note, an unsafe file name). Nothing is written: `applyImport` writes the adds.
 * Export records are written byte for byte (unless the redactor changes them); notes from
 * folders are mapped to memories (mapNote) and given `project` when one is passed.
 */
export function planImport(
  source: ImportSource,
  context: { home: string; store: MemoryStore; project: ProjectRef | null },
): ImportPlan {
  checkIndexHeader(source.indexHeader);
  const redactor = redactorFor(context.home);
  const snapshot = context.store.snapshot();
  const byFile = new Map<string, string>();
  const byName = new Map<string, string>();
  const byBody = new Map<string, string>();
  for (const entry of snapshot.entries) {
    if (entry.type === 'index') continue;
    let text = '';
    try {
      text = readMemoryText(context.store.memoryDir, entry.file) ?? '';
    } catch {
      continue;
    }
    byFile.set(entry.file, text);
    byName.set(entry.name.toLowerCase(), entry.file);
    byBody.set(bodyKey(bodyOf(text)), entry.file);
  }
  const rows: ImportRow[] = [];
  const writes: PlannedWrite[] = [];
  const from = source.kind === 'claude' ? 'claude-code' : source.kind;
  for (const candidate of source.candidates) {
    const row = (action: ImportAction, reason: string, extra: Partial<ImportRow> = {}): ImportRow => {
      const r: ImportRow = {
        source: candidate.source,
        action,
        file: null,
        name: null,
        type: null,
        reason,
        ...extra,
      };
      rows.push(r);
      return r;
    };
    if (candidate.text === undefined) {
      row('refused', candidate.problem ?? 'unreadable');
      continue;
    }
    const counts: RedactionCounts = {};
    let mapped: { file: string; name: string; type: string; description: string; text: string; body: string };
    try {
      mapped =
        source.kind === 'export'
          ? exportRecord(candidate.file ?? candidate.source, candidate.text, redactor, counts)
          : mapNote({
              source: candidate.source,
              folder: candidate.folder ?? '',
              text: candidate.text,
              redactor,
              counts,
              project: context.project,
              from,
            });
    } catch (error) {
      row('refused', (error as Error).message, candidate.file ? { file: candidate.file } : {});
      continue;
    }
    const redacted = Object.keys(counts).length > 0 ? { redacted: counts } : {};
    const id = { file: mapped.file, name: mapped.name, type: mapped.type, ...redacted };
    const existing = byFile.get(mapped.file);
    if (existing !== undefined) {
      if (existing === mapped.text) row('duplicate', `memory/${mapped.file} holds the same bytes`, id);
      else if (bodyKey(bodyOf(existing)) === bodyKey(mapped.body))
        row('duplicate', `memory/${mapped.file} holds the same text`, id);
      else
        row(
          'refused',
          `memory/${mapped.file} exists with other content (forget it first, or rename the note)`,
          id,
        );
      continue;
    }
    const sameBody = byBody.get(bodyKey(mapped.body));
    if (sameBody !== undefined) {
      row('duplicate', `same text as memory/${sameBody}`, id);
      continue;
    }
    const named = byName.get(mapped.name.toLowerCase());
    if (named !== undefined) {
      row(
        'refused',
        `the name "${mapped.name}" is taken by memory/${named} (rename the note, or forget that memory)`,
        id,
      );
      continue;
    }
    // An export's index line must be one line linking to the record's own file: MEMORY.md's
    // links decide which file remember --replace writes and forget moves.
    if (
      source.kind === 'export' &&
      candidate.indexLine !== undefined &&
      !isOwnIndexLine(candidate.indexLine, mapped.file)
    ) {
      row(
        'refused',
        `its index_line is not one "- [Title](${mapped.file}) - …" line linking to its own file (${JSON.stringify(candidate.indexLine.slice(0, 80))})`,
        id,
      );
      continue;
    }
    const indexLine =
      source.kind === 'export'
        ? candidate.indexLine
        : `- [${indexTitle(mapped.name)}](${mapped.file}) - ${oneLine(mapped.description)}`;
    writes.push({ file: mapped.file, text: mapped.text, indexLine });
    byFile.set(mapped.file, mapped.text);
    byName.set(mapped.name.toLowerCase(), mapped.file);
    byBody.set(bodyKey(mapped.body), mapped.file);
    row('add', source.kind === 'export' ? 'from the export' : `as ${mapped.type}`, id);
  }
  const counts: Record<ImportAction, number> = { add: 0, duplicate: 0, refused: 0 };
  for (const r of rows) counts[r.action]++;
  return {
    kind: source.kind,
    path: source.path,
    rows,
    counts,
    ignored: source.ignored,
    writes,
    ...(source.indexHeader !== undefined ? { indexHeader: source.indexHeader } : {}),
  };
}

/**
 * Writes a plan's adds under memory/'s lock: each file atomically, then their MEMORY.md lines
 * in one append (an empty home's index starts with the export's heading). A file that appeared
 * since the plan was made is left alone and reported. Redactions are counted (`import`).
 */
export async function applyImport(
  home: string,
  plan: ImportPlan,
  store: MemoryStore,
  now: Date,
): Promise<{ written: string[]; skipped: string[] }> {
  const paths = homePaths(home);
  const written: string[] = [];
  const skipped: string[] = [];
  await withFileLock(paths.memory, async () => {
    const lines: string[] = [];
    for (const write of plan.writes) {
      const path = join(paths.memory, write.file);
      // Anything at the name (a file, or a link the plan did not see) is left alone.
      if (lstatSync(path, { throwIfNoEntry: false })) {
        skipped.push(write.file);
        continue;
      }
      try {
        await writeConfined(path, write.text, { root: paths.memory });
      } catch (error) {
        if (!(error instanceof UnsafeFileError)) throw error;
        skipped.push(write.file);
        continue;
      }
      written.push(write.file);
      if (write.indexLine !== undefined) lines.push(write.indexLine);
    }
    if (lines.length > 0) {
      const indexText = readIndex(paths.memory) ?? '';
      const header =
        plan.indexHeader !== undefined ? `${plan.indexHeader.replace(/\n*$/, '')}\n\n` : INDEX_HEADER;
      const prefix = indexText === '' ? header : indexText.endsWith('\n') ? '' : '\n';
      appendOnce(paths.memoryIndex, `${prefix}${lines.join('\n')}\n`);
    }
  });
  store.invalidate();
  const counts: RedactionCounts = {};
  for (const row of plan.rows)
    if (row.action === 'add' && row.redacted && written.includes(row.file ?? ''))
      for (const [kind, n] of Object.entries(row.redacted)) counts[kind] = (counts[kind] ?? 0) + n;
  noteRedactions(home, 'import', counts, now);
  return { written, skipped };
}

/**
 * An export's record, checked as a hand edit would be (frontmatter that parses, a name, a type
 * from the list) and redacted: the body as text; frontmatter values parsed, and the block
 * re-rendered only when the redactor changed one (so a clean file stays byte for byte).
 */
function exportRecord(file: string, text: string, redactor: Redactor, counts: RedactionCounts) {
  if (!SAFE_FILE.test(file) || file === 'MEMORY.md') throw new Error(`unsafe file name "${file}"`);
  let out = text;
  const fm = parseFrontmatter(text);
  if (!fm.error) {
    const before = Object.keys(counts).length;
    const body = redactor.redact(fm.body, counts);
    const data = redactValues(fm.data, redactor, counts);
    if (Object.keys(counts).length !== before) out = renderFrontmatter(data, body);
  }
  const checked = checkMemoryText(out);
  return {
    file,
    name: checked.name,
    type: checked.type,
    description: checked.description,
    text: out,
    body: bodyOf(out),
  };
}

function redactValues(
  data: Record<string, unknown>,
  redactor: Redactor,
  counts: RedactionCounts,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (typeof value === 'string') out[key] = redactor.redact(value, counts);
    else if (Array.isArray(value))
      out[key] = value.map((v) => (typeof v === 'string' ? redactor.redact(v, counts) : v));
    else out[key] = value;
  }
  return out;
}

/** An index line's shape, whatever it links to. */
const ANY_INDEX_LINE = /^\s*[-*]\s+\[(?:\\.|[^\]\\])*\]\([^)]*\)/m;
const MAX_INDEX_HEADER = 16 * 1024;

/**
 * An export's `index_header` (MEMORY.md's heading) is text only: no index line (those come from
 * the records, each checked against its own file), and short.
 */
function checkIndexHeader(header: string | undefined): void {
  if (header === undefined) return;
  const problem =
    typeof header !== 'string'
      ? 'is not a string'
      : header.length > MAX_INDEX_HEADER
        ? `is ${header.length} characters (the limit is ${MAX_INDEX_HEADER})`
        : ANY_INDEX_LINE.test(header) || header.includes('\u0000')
          ? 'holds an index line ("- [Title](file)"); a heading is text only'
          : undefined;
  if (problem) {
    throw new UserError(`the export's index_header ${problem}`, {
      code: 'INVALID_ARGUMENT',
      hint: 'index_header: the text of MEMORY.md before its first memory line (e.g. "# Memory index"); fix or remove it in the export\'s first line',
    });
  }
}

/** A body compared for duplicates: trimmed, whitespace collapsed, case folded. */
function bodyKey(body: string): string {
  return body.replace(/\s+/g, ' ').trim().toLowerCase();
}
