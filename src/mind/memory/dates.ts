import { UserError } from '../../core/index.js';
import type { MemoryEntry } from './entries.js';

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const ISO_DAY = /\b(\d{4})-(\d{2})-(\d{2})/;

/**
 * Words for when a memory is about, so "what did we do in early October" can find a digest
 * named "Session 2026-10-03": the month name, the year and the day, from the frontmatter
 * `date`, else a date in the name or description, else `created`.
 */
export function whenWords(entry: MemoryEntry): string {
  const source =
    entry.fields.date ??
    ISO_DAY.exec(entry.name)?.[0] ??
    ISO_DAY.exec(entry.description)?.[0] ??
    entry.fields.created;
  const m = source ? ISO_DAY.exec(source) : null;
  if (!m) return '';
  const month = MONTHS[Number(m[2]) - 1];
  if (!month) return '';
  return `${month} ${m[1]} ${Number(m[3])}`;
}

/** The `YYYY-MM-DD` a memory is about (see whenWords), or undefined. */
export function dateOf(entry: MemoryEntry): string | undefined {
  const source =
    entry.fields.date ??
    ISO_DAY.exec(entry.name)?.[0] ??
    ISO_DAY.exec(entry.description)?.[0] ??
    entry.fields.created;
  return source ? ISO_DAY.exec(source)?.[0] : undefined;
}

/** Days of a month a query narrows to: a range of `MM-DD` (and a year when one is named). */
export interface DateRange {
  year?: string;
  from: string;
  to: string;
}

const PARTS: [RegExp, number, number][] = [
  [/\bfirst week of\b/, 1, 7],
  [/\bsecond week of\b/, 8, 14],
  [/\bthird week of\b/, 15, 21],
  [/\blast week of\b/, 22, 31],
  [/\b(early|beginning of|start of)\b/, 1, 10],
  [/\b(mid|middle of)\b/, 11, 20],
  [/\b(late|end of)\b/, 21, 31],
];

/**
 * The time a query asks about, from an ISO day ("2026-12-08"), a month with a day
 * ("October 22") or a month with a part ("early October", "the first week of December",
 * "late November"), or a bare month. Undefined when the query names no time.
 */
export function dateRangeOf(query: string): DateRange | undefined {
  const q = query.toLowerCase();
  const iso = ISO_DAY.exec(q);
  if (iso) return { year: iso[1] as string, from: `${iso[2]}-${iso[3]}`, to: `${iso[2]}-${iso[3]}` };
  const month = MONTHS.findIndex((m) => new RegExp(`\\b${m}\\b`).test(q));
  if (month < 0) return undefined;
  const mm = String(month + 1).padStart(2, '0');
  const year = /\b(20\d\d)\b/.exec(q)?.[1];
  const withYear = (r: DateRange) => (year ? { ...r, year } : r);
  const day = new RegExp(`\\b${MONTHS[month]} (\\d{1,2})\\b`).exec(q)?.[1];
  if (day) {
    const dd = day.padStart(2, '0');
    return withYear({ from: `${mm}-${dd}`, to: `${mm}-${dd}` });
  }
  for (const [pattern, a, b] of PARTS) {
    if (pattern.test(q)) {
      return withYear({
        from: `${mm}-${String(a).padStart(2, '0')}`,
        to: `${mm}-${String(b).padStart(2, '0')}`,
      });
    }
  }
  return withYear({ from: `${mm}-01`, to: `${mm}-31` });
}

/** Whether a `YYYY-MM-DD` day falls inside a range. */
export function inRange(day: string, range: DateRange): boolean {
  if (range.year && day.slice(0, 4) !== range.year) return false;
  const md = day.slice(5);
  return md >= range.from && md <= range.to;
}

/** The query without its time phrase (month, day, year, early/mid/late, week of). */
export function withoutTime(query: string): string {
  return query
    .replace(ISO_DAY, ' ')
    .replace(new RegExp(`\\b(${MONTHS.join('|')})( \\d{1,2})?\\b`, 'gi'), ' ')
    .replace(/\b(20\d\d|early|mid|late|beginning|start|middle|end|first|second|third|last|week)\b/gi, ' ');
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * A time bound as people type one: `30m`, `2h`, `7d`, `1w` back from `now`, or an ISO date
 * (`2026-11-20`) or date-time. `field` names the option in the error (`--since`, `until`).
 */
export function parseTimeBound(text: string, now: Date, field: string): Date {
  const duration = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(text.trim());
  if (duration) return new Date(now.getTime() - Number(duration[1]) * UNIT_MS[duration[2]!.toLowerCase()]!);
  if (/^\d{4}-\d{2}-\d{2}/.test(text.trim())) {
    const at = Date.parse(text.trim());
    if (!Number.isNaN(at)) return new Date(at);
  }
  throw new UserError(`${field} "${text}" is neither a duration nor an ISO date`, {
    code: 'INVALID_ARGUMENT',
    hint: `${field} 30m, 2h, 7d or 1w (back from now), or an ISO date/time such as 2026-11-20 or 2026-11-20T09:00:00Z`,
  });
}

/** A time window: the ends a caller gave (either may be open). */
export interface TimeWindow {
  since?: Date | undefined;
  until?: Date | undefined;
}

/**
 * Whether an ISO time or a `YYYY-MM-DD` day falls in the window; a bare day counts when any
 * part of it does (a memory dated 2026-11-20 is in a window from 2026-11-20T09:00).
 */
export function inWindow(at: string, window: TimeWindow): boolean {
  if (at.length === 10) {
    if (window.since && at < window.since.toISOString().slice(0, 10)) return false;
    if (window.until && at > window.until.toISOString().slice(0, 10)) return false;
    return true;
  }
  if (window.since && at < window.since.toISOString()) return false;
  if (window.until && at > window.until.toISOString()) return false;
  return true;
}
