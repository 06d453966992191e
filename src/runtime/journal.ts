import { UserError } from '../core/index.js';

/**
 * The DOLCHEO journal's rows: the kinds the runtime writes, a row's 8-column TSV form (read
 * also in the headerless 3-column `LETTER	title	content`), its `key=value` fields, and the
 * filters `firstlight journal` takes. Where rows are kept is the ledger's (ledger/).
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
  'participant',
  'backpressure',
  'teardown',
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
  participant: { letter: 'O' },
  backpressure: { letter: 'O' },
  teardown: { letter: 'O' },
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

/** The query's filter: rows since a moment, of a type (letter, type name, kind or facet). */
export function journalFilter(query: JournalQuery = {}): (entry: JournalEntry) => boolean {
  const since = query.since ? parseSince(query.since, query.now) : undefined;
  const wanted = query.type?.trim();
  return (entry) =>
    !(since && entry.at && new Date(entry.at) < since) && !(wanted && !matchesType(entry, wanted));
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
