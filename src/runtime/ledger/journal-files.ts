import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { appendLine, withFileLock } from '../../core/index.js';
import {
  formatEntry,
  JOURNAL_HEADER,
  type JournalEntry,
  type JournalQuery,
  type JournalWrite,
  journalFilter,
  parseRow,
} from '../journal.js';
import type { HandoffRow } from './types.js';

/**
 * The journal as files: append-only TSV, one file a day (UTC) in `<ledger>/journal/`, written
 * with the 8-column header. Part of the file ledger (the only code that touches these files).
 */

/** The journal file for a moment: `<dir>/YYYY-MM-DD.tsv` (UTC). */
export function journalFile(dir: string, at: Date): string {
  return join(dir, `${at.toISOString().slice(0, 10)}.tsv`);
}

/**
 * Appends entries (in order) as ONE write with O_APPEND, which concurrent writers cannot
 * interleave (core's append-log). Only creating a day's file takes the cross-process lock, so
 * its header is written exactly once and always first: the first writer puts header and rows
 * down in one write while holding it; everyone after sees the file and appends.
 */
export async function appendJournal(
  dir: string,
  entries: readonly JournalWrite[],
  now = new Date(),
): Promise<string> {
  const file = journalFile(dir, now);
  if (entries.length === 0) return file;
  const rows = entries.map((entry) => formatEntry(entry, now)).join('\n');
  if (hasContent(file)) {
    appendLine(file, rows);
    return file;
  }
  await withFileLock(
    file,
    async () => {
      appendLine(file, hasContent(file) ? rows : `${JOURNAL_HEADER}\n${rows}`);
    },
    { waitMs: 10_000 },
  );
  return file;
}

function hasContent(file: string): boolean {
  return (statSync(file, { throwIfNoEntry: false })?.size ?? 0) > 0;
}

/** Reads every journal file in `dir`, oldest first, in both the 8-column and 3-column forms. */
export function readJournal(dir: string, query: JournalQuery = {}): JournalEntry[] {
  if (!existsSync(dir)) return [];
  const keep = journalFilter(query);
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.tsv'))
    .sort();
  const out: JournalEntry[] = [];
  for (const name of files) {
    const file = join(dir, name);
    const fileDate = /^\d{4}-\d{2}-\d{2}/.exec(basename(name))?.[0];
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const entry = parseRow(line, file, fileDate);
      if (entry && keep(entry)) out.push(entry);
    }
  }
  return out;
}

/**
 * The `transition` or `import` row of `session` that stores handoff `id`, in one journal file's
 * text. Rows are scanned as text first (a day's journal holds many sessions), and only
 * candidates are parsed.
 */
export function findHandoffRow(
  text: string,
  file: string,
  session: string,
  id: string,
): HandoffRow | undefined {
  const sessionNeedle = `session=${session}`;
  const idNeedle = `handoff=${id}`;
  for (const line of text.split('\n')) {
    if (!line.includes(sessionNeedle) || !line.includes(idNeedle)) continue;
    const entry = parseRow(line, file);
    if (entry?.kind !== 'transition' && entry?.kind !== 'import') continue;
    if (entry.fields.session === session && entry.fields.handoff === id)
      return { kind: entry.kind, fields: entry.fields };
  }
  return undefined;
}
