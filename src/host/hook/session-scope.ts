/**
 * Which records of a transcript belong to the session the gate is asked about. Claude Code
 * names the session on every line; Codex and Gemini CLI name it once, in the record that opens
 * it (Codex's `session_meta`, Gemini's metadata line), so a record is the session's that last
 * opened before it, unless it names its own (a Codex event's `thread_id`). A record of another
 * session, or, where sessions are opened, of none the file says, proves nothing for this one:
 * another session's rollout or chat file, a forked copy's parent lines (issue 35).
 */
import { readSync } from 'node:fs';
import { isEntry, type TranscriptEntry, type TranscriptReader } from '../../resume/transcripts/index.js';

/** How much of a file's head is read for the record that opens its session (a Codex `session_meta` is ~20 KB). */
const HEAD_BYTES = 1 << 20;
const FIRST_READ = 64 * 1024;
const NEWLINE = 0x0a;

export class SessionScope {
  /** Sessions whose records held a proof call this one skipped, for the deny reason. */
  readonly foreign = new Set<string>();
  /** Proof calls skipped because no record said which session they were in. */
  unknown = 0;
  /** The session open where the current chunk starts. */
  private carried: string | undefined;
  /** Where sessions open inside the current chunk, in order. */
  private opens: { start: number; id: string }[] = [];

  constructor(
    private readonly reader: TranscriptReader,
    /** The hook's session id: null admits every record (nothing to compare with). */
    readonly want: string | null,
    /** The session the file's first record opens (readHead), for a scan that starts past it. */
    head?: string,
  ) {
    this.carried = head;
  }

  private get active(): boolean {
    return this.want !== null && this.reader.opensSession !== undefined;
  }

  /** Notes where sessions open in a chunk of whole lines; `parse` reads the line at [start, end). */
  enterChunk(
    buf: Buffer,
    parse: (line: { start: number; end: number }) => TranscriptEntry | null,
    start = 0,
  ): void {
    this.opens = [];
    if (!this.active) return;
    const opener = this.reader.opensSession!;
    const needle = Buffer.from(opener.needle);
    for (let at = buf.indexOf(needle, start); at >= 0; ) {
      const line = { start: buf.lastIndexOf(NEWLINE, at) + 1, end: nextNewline(buf, at) };
      const entry = parse(line);
      const id = entry ? opener.of(entry) : undefined;
      if (id !== undefined) this.opens.push({ start: line.start, id });
      at = buf.indexOf(needle, line.end + 1);
    }
  }

  /** The chunk is done: what opened last in it is open where the next one starts. */
  leaveChunk(): void {
    if (this.opens.length > 0) this.carried = this.opens.at(-1)!.id;
    this.opens = [];
  }

  /** A record read in order (a document's): one that opens a session changes what is open. */
  step(entry: TranscriptEntry): void {
    const id = this.active ? this.reader.opensSession!.of(entry) : undefined;
    if (id !== undefined) this.carried = id;
  }

  /** The session of the record at `start` of the current chunk, as far as the file says. */
  private sessionAt(entry: TranscriptEntry, start: number): string | undefined {
    const own = this.reader.sessionOf(entry);
    if (own !== undefined || !this.reader.opensSession) return own;
    let open = this.carried;
    for (const o of this.opens) {
      if (o.start > start) break;
      open = o.id;
    }
    return open;
  }

  /** Whether the record at `start` may prove something for this session. */
  admits(entry: TranscriptEntry, start = 0): boolean {
    if (this.want === null) return true;
    const session = this.sessionAt(entry, start);
    // Claude Code lines that name no session are the session's file's own (as before).
    if (session === undefined) return !this.reader.opensSession;
    return session === this.want;
  }

  /** Counts a proof call that `admits` refused, for the reason. */
  skipped(entry: TranscriptEntry, start = 0): void {
    const session = this.sessionAt(entry, start);
    if (session === undefined) this.unknown++;
    else this.foreign.add(session);
  }

  /** Why no call counted, when some were skipped (appended to the "no call" reason). */
  why(): string {
    const want = JSON.stringify(this.want);
    if (this.foreign.size > 0) {
      const others = [...this.foreign].map((s) => `session ${JSON.stringify(s)}`).join(', ');
      return ` (the transcript's bootstrap_session belongs to ${others}, not to this session ${want})`;
    }
    if (this.unknown > 0)
      return ` (the transcript does not say which session it is, so its bootstrap_session cannot prove session ${want})`;
    return '';
  }
}

function nextNewline(buf: Buffer, at: number): number {
  const nl = buf.indexOf(NEWLINE, at);
  return nl < 0 ? buf.length : nl;
}

/** The session the file's first record opens, read from its head (undefined when it opens none). */
export function readHeadSession(fd: number, size: number, reader: TranscriptReader): string | undefined {
  const opener = reader.opensSession;
  if (!opener || size === 0) return undefined;
  let length = Math.min(size, FIRST_READ);
  for (;;) {
    const buf = Buffer.allocUnsafe(length);
    const n = readSync(fd, buf, 0, length, 0);
    const nl = buf.subarray(0, n).indexOf(NEWLINE);
    if (nl >= 0 || n >= size) {
      try {
        const value = JSON.parse(buf.toString('utf8', 0, nl >= 0 ? nl : n)) as unknown;
        return isEntry(value) ? opener.of(value) : undefined;
      } catch {
        return undefined;
      }
    }
    if (length >= Math.min(size, HEAD_BYTES)) return undefined;
    length = Math.min(size, HEAD_BYTES);
  }
}
