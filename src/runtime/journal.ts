import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { appendLine, UserError, withFileLock } from '../core/index.js';

/**
 * The DOLCHEO journal: append-only TSV, one file a day (UTC) in `<ledger>/journal/`, written
 * with the 8-column header and read in that form or the headerless 3-column `LETTER	title	content`.
 * Appends take the file's cross-process lock, so the header is written exactly once and lines
 * from concurrent sessions never interleave.
 */

export const JOURNAL_HEADER =
  'type\ttypeName\tfacet\tquality_score\tquality_max\tquality_level\ttitle\tcontent';

export const TYPE_NAMES = {
  D: 'Decision',
  O: 'Observation',
  L: 'Learning',
  C: 'Constraint',
  H: 'Handoff',
  E: 'Encode',
  T: 'Tension',
} as const;
export type JournalLetter = keyof typeof TYPE_NAMES;

/** What the runtime journals; the first word of every title it writes. */
export const JOURNAL_KINDS = [
  'session_start',
  'session_end',
  'transition',
  'refusal',
  'denial',
  'override_start',
  'override_end',
  'handoff_insufficient',
  'acknowledgement',
  'turn_yielded',
  'import',
] as const;
export type JournalKind = (typeof JOURNAL_KINDS)[number];

const KIND_LETTER: Readonly<Record<JournalKind, { letter: JournalLetter; facet?: string }>> = {
  session_start: { letter: 'O' },
  session_end: { letter: 'O' },
  transition: { letter: 'H' },
  refusal: { letter: 'C' },
  denial: { letter: 'C' },
  override_start: { letter: 'D' },
  override_end: { letter: 'D' },
  handoff_insufficient: { letter: 'O', facet: 'open' },
  acknowledgement: { letter: 'D' },
  turn_yielded: { letter: 'O', facet: 'open' },
  import: { letter: 'H' },
};

/** One entry to write. `fields` become `key=value` pairs in `content`, after `at` and `session`. */
export interface JournalWrite {
  readonly kind: JournalKind;
  readonly title: string;
  readonly session: string;
  readonly fields?: Readonly<Record<string, string | number | boolean | undefined>>;
}

/** One entry read back. */
export interface JournalEntry {
  readonly type: string;
  readonly typeName: string;
  readonly facet: string;
  readonly title: string;
  readonly content: string;
  /** The runtime's kind (from the title), when the entry is one of ours. */
  readonly kind?: string;
  /** When it was written (from `at=` in content, else the file's date). */
  readonly at?: string;
  readonly session?: string;
  /** `content`'s `key=value` pairs, unescaped (`at` and `session` included). */
  readonly fields: Readonly<Record<string, string>>;
  readonly file: string;
}

function escapeCell(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r?\n/g, '\\n').replace(/\r/g, '\\r');
}

function unescapeCell(value: string): string {
  return value.replace(/\\(\\|t|n|r)/g, (_, c: string) =>
    c === 't' ? '\t' : c === 'n' ? '\n' : c === 'r' ? '\r' : '\\',
  );
}

/**
 * A field value inside `content`: `;` separates pairs, so a value's own `;` (and the backslash
 * that escapes it) is escaped, never rewritten — what was journaled reads back unchanged.
 */
function escapeValue(value: string): string {
  return /[\\;]/.test(value) ? value.replace(/[\\;]/g, '\\$&') : value;
}

/** `content`'s `key=value; key=value` pairs, each value unescaped. */
export function parseFields(content: string): Record<string, string> {
  const fields: Record<string, string> = {};
  let i = 0;
  while (i < content.length) {
    const eq = content.indexOf('=', i);
    if (eq < 0) break;
    const key = content.slice(i, eq).trim();
    let value = '';
    i = eq + 1;
    for (; i < content.length && content[i] !== ';'; i++) {
      if (content[i] === '\\' && i + 1 < content.length) i++;
      value += content[i];
    }
    fields[key] = value;
    i++; // the `;`
    while (content[i] === ' ') i++;
  }
  return fields;
}

/** The journal file for a moment: `<dir>/YYYY-MM-DD.tsv` (UTC). */
export function journalFile(dir: string, at: Date): string {
  return join(dir, `${at.toISOString().slice(0, 10)}.tsv`);
}

/** Formats one entry as a TSV row (8 columns). */
export function formatEntry(entry: JournalWrite, at: Date): string {
  const { letter, facet } = KIND_LETTER[entry.kind];
  const parts = [`at=${at.toISOString()}`, `session=${entry.session}`];
  for (const [key, value] of Object.entries(entry.fields ?? {})) {
    if (value === undefined || value === '') continue;
    parts.push(`${key}=${escapeValue(String(value))}`);
  }
  return [
    letter,
    TYPE_NAMES[letter],
    facet ?? '',
    '',
    '',
    '',
    `${entry.kind}: ${entry.title}`,
    parts.join('; '),
  ]
    .map(escapeCell)
    .join('\t');
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

export interface JournalQuery {
  /** ISO date or time, or a span back from now: `30m`, `2h`, `7d`. */
  readonly since?: string;
  /** A DOLCHEO letter (`D`, `O`, …) or a runtime kind (`refusal`, `transition`, …). */
  readonly type?: string;
  readonly now?: Date;
}

/** Parses `--since`: an ISO date/time or `N[smhd]` back from `now`. */
export function parseSince(since: string, now = new Date()): Date {
  const span = /^(\d+)\s*([smhd])$/.exec(since.trim());
  if (span) {
    const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[span[2] as 's' | 'm' | 'h' | 'd'];
    return new Date(now.getTime() - Number(span[1]) * unit);
  }
  const date = new Date(since);
  if (Number.isNaN(date.getTime())) {
    throw new UserError(`--since "${since}" is neither a date nor a span`, {
      code: 'INVALID_ARGUMENT',
      hint: 'pass an ISO date or time (2026-11-25, 2026-11-25T10:00Z) or a span back from now (30m, 2h, 7d)',
    });
  }
  return date;
}

/** Reads every journal file in `dir`, oldest first, in both the 8-column and 3-column forms. */
export function readJournal(dir: string, query: JournalQuery = {}): JournalEntry[] {
  if (!existsSync(dir)) return [];
  const since = query.since ? parseSince(query.since, query.now) : undefined;
  const wanted = query.type?.trim();
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.tsv'))
    .sort();
  const out: JournalEntry[] = [];
  for (const name of files) {
    const file = join(dir, name);
    const fileDate = /^\d{4}-\d{2}-\d{2}/.exec(basename(name))?.[0];
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const entry = parseRow(line, file, fileDate);
      if (!entry) continue;
      if (since && entry.at && new Date(entry.at) < since) continue;
      if (wanted && !matchesType(entry, wanted)) continue;
      out.push(entry);
    }
  }
  return out;
}

function matchesType(entry: JournalEntry, wanted: string): boolean {
  if (/^[A-Za-z]$/.test(wanted)) return entry.type.toUpperCase() === wanted.toUpperCase();
  const lower = wanted.toLowerCase();
  return (
    entry.kind === wanted || entry.typeName.toLowerCase() === lower || entry.facet.toLowerCase() === lower
  );
}

/** One journal line as an entry (undefined for a header or blank line). */
export function parseRow(line: string, file: string, fileDate?: string): JournalEntry | undefined {
  if (line.trim() === '') return undefined;
  const cells = line.replace(/\r$/, '').split('\t');
  const first = cells[0]?.trim().toLowerCase() ?? '';
  if (['type', 'typename', 'letter'].includes(first)) return undefined; // a header row
  if (cells.length < 3) return undefined;
  let type: string;
  let typeName: string;
  let facet = '';
  let title: string;
  let content: string;
  if (cells.length >= 8) {
    [type, typeName, facet] = [cells[0]!, cells[1]!, cells[2]!];
    title = cells[6]!;
    content = cells.slice(7).join('\t');
  } else {
    type = cells[0]!;
    typeName = TYPE_NAMES[type.toUpperCase() as JournalLetter] ?? type;
    title = cells[1]!;
    content = cells.slice(2).join('\t');
  }
  title = unescapeCell(title);
  content = unescapeCell(content);
  const kindMatch = /^([a-z_]+):\s/.exec(title);
  const kind =
    kindMatch && (JOURNAL_KINDS as readonly string[]).includes(kindMatch[1]!) ? kindMatch[1] : undefined;
  const fields = kind ? parseFields(content) : {};
  const at = fields.at ?? (fileDate ? `${fileDate}T00:00:00.000Z` : undefined);
  const session = fields.session;
  return {
    type,
    typeName,
    facet,
    title,
    content,
    ...(kind ? { kind } : {}),
    ...(at ? { at } : {}),
    ...(session ? { session } : {}),
    fields,
    file,
  };
}
