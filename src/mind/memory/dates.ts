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
