import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomicallySync } from '../../core/index.js';
import { readHeaded } from './persisted-index.js';

/** The searchable fields of one memory. */
export interface IndexedDoc {
  id: string;
  name: string;
  description: string;
  tags: string;
  body: string;
  /** Month, year and day the memory is about (see dates.ts). */
  when: string;
}

/**
 * One change to the index: a memory file (re)indexed as `doc` when it had this mtime and size,
 * or a file no longer indexed (deleted, or now unreadable). Each entry states what a file is,
 * not a step from the one before, so replaying entries on any snapshot is safe: what a replay
 * gets wrong (an entry lost, two writers' entries for one file out of order) shows as a
 * manifest row that disagrees with the file, and the file is re-read.
 */
export type LogEntry = ['+', doc: IndexedDoc, mtimeMs: number, size: number] | ['-', file: string];

/**
 * The change log beside the snapshot: line 1 is `{"format":N,"log":"<id>"}`, every further line
 * one LogEntry as JSON. Writers only append (one write per batch); a compaction folds the log
 * into a new snapshot and starts a new log (a new id), carrying over what was appended to the
 * old one while it ran.
 */
export interface ChangeLog {
  id: string;
  entries: LogEntry[];
  /** Bytes read: a compaction carries over what was appended after them. */
  bytes: number;
}

export const newLogId = (): string => randomUUID();

export function logHeader(format: number, id: string): string {
  return `${JSON.stringify({ format, log: id })}\n`;
}

export function logLines(entries: Iterable<LogEntry>): string {
  let text = '';
  for (const entry of entries) text += `${JSON.stringify(entry)}\n`;
  return text;
}

/**
 * Reads a change log, or undefined when there is none or it is of another format. A line that
 * does not parse (a writer killed mid-append, the next append glued to it) is left out: it
 * costs a re-read of the files it names, never a wrong index.
 */
export function readLog(file: string, format: number): ChangeLog | undefined {
  const read = readHeaded(file);
  if (read?.head.format !== format || typeof read.head.log !== 'string') return undefined;
  const { text, eol } = read;
  const entries: LogEntry[] = [];
  let at = eol + 1;
  for (let end = text.indexOf('\n', at); end >= 0; end = text.indexOf('\n', at)) {
    const entry = parseEntry(text.slice(at, end));
    if (entry) entries.push(entry);
    at = end + 1;
  }
  return { id: read.head.log, entries, bytes: Buffer.byteLength(text.slice(0, at)) };
}

function parseEntry(line: string): LogEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value)) return undefined;
  if (value[0] === '-' && typeof value[1] === 'string') return ['-', value[1]];
  const doc: unknown = value[1];
  if (value[0] !== '+' || typeof value[2] !== 'number' || typeof value[3] !== 'number') return undefined;
  if (typeof doc !== 'object' || doc === null || !('id' in doc) || typeof doc.id !== 'string')
    return undefined;
  const field = (key: string): string => {
    const v: unknown = key in doc ? Reflect.get(doc, key) : '';
    return typeof v === 'string' ? v : '';
  };
  return [
    '+',
    {
      id: doc.id,
      name: field('name'),
      description: field('description'),
      tags: field('tags'),
      body: field('body'),
      when: field('when'),
    },
    value[2],
    value[3],
  ];
}

/** Starts a log (replacing any), holding `text` after its header: atomically, temp file and rename. */
export function startLog(file: string, format: number, id: string, text = ''): void {
  writeFileAtomicallySync(file, logHeader(format, id) + text);
}

/**
 * Appends `text` (whole lines) to the log in one write, starting one first when there is none.
 * Appending to a log another process started meanwhile is fine: entries are statements, not steps.
 */
export function appendLogSync(file: string, format: number, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  try {
    writeFileSync(file, logHeader(format, newLogId()), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  appendFileSync(file, text);
}

/** appendLogSync without blocking the event loop. */
export async function appendLog(file: string, format: number, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  try {
    await writeFile(file, logHeader(format, newLogId()), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  await appendFile(file, text);
}
