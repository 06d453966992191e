import { existsSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import {
  appendStateLine,
  confineFile,
  ensureDir,
  type FollowedTail,
  readStateFile,
  readStateTail,
  TailFollower,
} from '../core/index.js';

/** One session start: a line of `<home>/sessions.jsonl`. */
export interface SessionRecord {
  session_id: string | null;
  at: string;
}

/** The files that hold session starts in a home. */
export interface SessionFiles {
  /** The log: one JSON line per session start, appended. */
  log: string;
  /** The log before its last rotation (read for history, never written). */
  rotated: string;
  /** `{current, previous}` in one JSON document: moved into the log at the first recorded start. */
  single: string;
}

export function sessionFiles(home: string): SessionFiles {
  return {
    log: join(home, 'sessions.jsonl'),
    rotated: join(home, 'sessions.1.jsonl'),
    single: join(home, 'sessions.json'),
  };
}

/**
 * Bytes read from the end of each log. Two distinct starts (the current session and the one
 * before) are all a packet needs; this holds about a hundred.
 */
const TAIL_BYTES = 8 * 1024;
/** ... and at most this many of its lines (a follower that reads appends alone keeps as many). */
const TAIL_LINES = 100;
/** Past this size the log is rotated (about 4,000 starts), so the files stay bounded. */
export const ROTATE_BYTES = 256 * 1024;

/** What one file holds, as far as its tail shows. */
interface FileRead {
  records: SessionRecord[];
  /** Why some of it is not a session start (a hand edit, a disk that filled mid-write). */
  problem: string | undefined;
  size: number;
}

/** Everything the session files say, and what is wrong with them. */
export interface SessionsRead {
  records: SessionRecord[];
  logSize: number;
  /** Files with unreadable content: the record path moves each aside. */
  corrupt: { file: string; problem: string; records: SessionRecord[] }[];
  /** Files that could not be read at all (EACCES, …): reported, nothing is moved. */
  unreadable: { file: string; problem: string }[];
  /** `sessions.json` is present (valid or not): the record path folds it into the log. */
  singlePresent: boolean;
}

/** A session start parsed from one line, or why it is not one. */
export function parseStart(line: string): SessionRecord | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return `not valid JSON (${(error as Error).message})`;
  }
  return asRecord(value) ?? 'not a session start ({"session_id": string | null, "at": ISO time})';
}

function asRecord(value: unknown): SessionRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { session_id, at } = value as Record<string, unknown>;
  if (typeof at !== 'string' || Number.isNaN(Date.parse(at))) return undefined;
  if (session_id !== null && typeof session_id !== 'string') return undefined;
  return { session_id, at };
}

function readLog(file: string): FileRead | undefined {
  const tail = readStateTail(file, TAIL_BYTES);
  return tail && fileRead(tail.lines.map(parseStart).slice(-TAIL_LINES), tail.size);
}

/** A log's parsed lines as a FileRead: the starts, and what the other lines are. */
function fileRead(parsed: (SessionRecord | string)[], size: number): FileRead {
  const records: SessionRecord[] = [];
  const bad: string[] = [];
  for (const line of parsed) {
    if (typeof line === 'string') bad.push(line);
    else records.push(line);
  }
  const problem =
    bad.length === 0
      ? undefined
      : `${bad.length} unreadable line${bad.length === 1 ? '' : 's'}, the first ${bad[0]}`;
  return { records, problem, size };
}

/** `sessions.json`: `{current, previous}`, each a session start or null. */
function readSingle(file: string): FileRead | undefined {
  const text = readStateFile(file);
  if (text === undefined) return undefined;
  const fail = (why: string): FileRead => ({ records: [], problem: why, size: text.length });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return fail(`not valid JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null) return fail('not a {current, previous} object');
  const records: SessionRecord[] = [];
  for (const key of ['previous', 'current'] as const) {
    const entry = (value as Record<string, unknown>)[key];
    if (entry === null || entry === undefined) continue;
    const record = asRecord(entry);
    if (!record) return fail(`"${key}" is not a session start`);
    records.push(record);
  }
  return { records, problem: undefined, size: text.length };
}

/** Reads `sessions.json` when it is still there, and the tails of the rotated log and the log. */
export function readSessions(files: SessionFiles): SessionsRead {
  return collect(files, [
    readSource(files.single, readSingle),
    readSource(files.rotated, readLog),
    readSource(files.log, readLog),
  ]);
}

/** What reading one source gave: its content, nothing (absent), or the error that stopped it. */
type SourceRead = [file: string, read: FileRead | undefined | Error];

function readSource(file: string, read: (file: string) => FileRead | undefined): SourceRead {
  try {
    return [file, read(file)];
  } catch (error) {
    return [file, error as Error];
  }
}

function collect(files: SessionFiles, sources: SourceRead[]): SessionsRead {
  const out: SessionsRead = { records: [], logSize: 0, corrupt: [], unreadable: [], singlePresent: false };
  for (const [file, result] of sources) {
    if (result instanceof Error) {
      out.unreadable.push({ file, problem: `could not be read (${result.message})` });
      continue;
    }
    if (!result) continue;
    out.records.push(...result.records);
    if (result.problem) out.corrupt.push({ file, problem: result.problem, records: result.records });
    if (file === files.single) out.singlePresent = true;
    if (file === files.log) out.logSize = result.size;
  }
  return out;
}

/**
 * {@link readSessions} for a process that reads the session files again and again (a server, at
 * every bootstrap_session): each log is followed (TailFollower), so an unchanged file costs a
 * stat and an appended start is the only line parsed; `sessions.json`, normally absent, is
 * re-read only when its stat changes. The same answer as a fresh read.
 */
export class SessionsReader {
  private readonly files: SessionFiles;
  private readonly followers: Map<string, TailFollower<SessionRecord | string>>;
  private single: { print: string; read: FileRead | undefined } | undefined;
  /** Each followed tail's reading, computed once per tail. */
  private readonly tailReads = new WeakMap<FollowedTail<SessionRecord | string>, FileRead>();
  /** The last answer and the parts it was made of. */
  private last: { sources: SourceRead[]; read: SessionsRead } | undefined;

  constructor(files: SessionFiles) {
    this.files = files;
    const follow = (file: string) =>
      new TailFollower(file, {
        maxBytes: TAIL_BYTES,
        maxLines: TAIL_LINES,
        parse: parseStart,
        beforeRead: confineFile,
      });
    this.followers = new Map([files.rotated, files.log].map((file) => [file, follow(file)]));
  }

  read(): SessionsRead {
    const followed = (file: string): FileRead | undefined => {
      const tail = this.followers.get(file)!.read();
      if (!tail) return undefined;
      let read = this.tailReads.get(tail);
      if (!read) {
        read = fileRead(tail.items, tail.size);
        this.tailReads.set(tail, read);
      }
      return read;
    };
    const sources = [
      readSource(this.files.single, (file) => this.readSingle(file)),
      readSource(this.files.rotated, followed),
      readSource(this.files.log, followed),
    ];
    // A follower hands back the same tail while its file is unchanged, so the same parts mean
    // the same answer: a packet reads the session files several times, mostly unchanged.
    const last = this.last;
    if (last && sources.every(([, read], i) => !(read instanceof Error) && read === last.sources[i]![1]))
      return last.read;
    const read = collect(this.files, sources);
    this.last = { sources, read };
    return read;
  }

  /** Appends a session start to the log (O_APPEND, one write, no lock), keeping the follower in step. */
  append(record: SessionRecord): void {
    confineFile(this.files.log);
    const follower = this.followers.get(this.files.log)!;
    const line = JSON.stringify(record);
    try {
      follower.append(line);
    } catch (error) {
      // The home's directory is there on every call but the first ever: made only when missing.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      ensureDir(dirname(this.files.log));
      follower.append(line);
    }
  }

  private readSingle(file: string): FileRead | undefined {
    const st = statSync(file, { throwIfNoEntry: false });
    const print = st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}` : 'missing';
    if (this.single?.print !== print) this.single = { print, read: st ? readSingle(file) : undefined };
    return this.single.read;
  }
}

/** `path`, or `path-2`, `path-3`, … : the first that does not exist (an aside file is never replaced). */
function freeName(path: string): string {
  let candidate = path;
  for (let n = 2; existsSync(candidate); n++) candidate = `${path}-${n}`;
  return candidate;
}

/** Whether the record path has upkeep to do before it appends (under the log's lock). */
export function needsUpkeep(read: SessionsRead): boolean {
  return read.singlePresent || read.corrupt.length > 0 || read.logSize > ROTATE_BYTES;
}

/**
 * Rare work done under the log's lock before a start is appended, from a fresh read: folds
 * `sessions.json` into the log, moves a corrupt file aside as `<name>.corrupt-<time>` (its
 * readable starts are appended to the log, so "time since the last session" survives), and
 * rotates the log past {@link ROTATE_BYTES}. Returns one notice per file moved aside.
 * Appends by other processes need no lock: one landing in a file being renamed lands in the
 * renamed file, which is either read (the rotation) or kept (the corrupt copy).
 */
export function upkeep(files: SessionFiles, now: Date): string[] {
  const read = readSessions(files);
  const notices: string[] = [];
  for (const { file, problem, records } of read.corrupt) {
    const aside = freeName(`${file}.corrupt-${now.getTime()}`);
    renameSync(file, aside);
    for (const record of records) appendStateLine(files.log, JSON.stringify(record));
    notices.push(
      `${basename(file)}: ${problem}; kept it as ${basename(aside)} and carried its ${records.length} readable session start(s) into ${basename(files.log)}`,
    );
  }
  const moved = new Set(read.corrupt.map((c) => c.file));
  if (read.singlePresent && !moved.has(files.single)) {
    for (const record of readSingle(files.single)?.records ?? []) {
      appendStateLine(files.log, JSON.stringify(record));
    }
    unlinkSync(files.single);
  }
  if (read.logSize > ROTATE_BYTES && !moved.has(files.log)) renameSync(files.log, files.rotated);
  return notices;
}

/** Every session start a home's files hold, newest first, and what could not be read. */
export interface SessionHistory {
  sessions: SessionRecord[];
  /** Lines or files that are not session starts (`sessions.jsonl line 3: not valid JSON (…)`). */
  problems: string[];
}

/**
 * All the session starts of a home (the log, its rotated predecessor and a `sessions.json` not
 * yet folded in), whole files rather than tails, newest first; the same start seen twice is
 * listed once. Reads only: nothing is moved aside or rotated.
 */
export function readSessionHistory(home: string): SessionHistory {
  const files = sessionFiles(home);
  const problems: string[] = [];
  const seen = new Set<string>();
  const sessions: SessionRecord[] = [];
  const add = (record: SessionRecord) => {
    const key = `${record.at}\u0000${record.session_id ?? ''}`;
    if (seen.has(key)) return;
    seen.add(key);
    sessions.push(record);
  };
  for (const file of [files.rotated, files.log]) {
    let text: string | undefined;
    try {
      text = readStateFile(file);
    } catch (error) {
      problems.push(`${basename(file)} could not be read (${(error as Error).message})`);
      continue;
    }
    if (text === undefined) continue;
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      const parsed = parseStart(line);
      if (typeof parsed === 'string') problems.push(`${basename(file)} line ${i + 1}: ${parsed}`);
      else add(parsed);
    });
  }
  try {
    const single = readSingle(files.single);
    if (single?.problem) problems.push(`${basename(files.single)}: ${single.problem}`);
    for (const record of single?.records ?? []) add(record);
  } catch (error) {
    problems.push(`${basename(files.single)} could not be read (${(error as Error).message})`);
  }
  sessions.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  return { sessions, problems };
}
