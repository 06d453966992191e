/**
 * Finds whether a transcript proves a successful `bootstrap_session`, without JSON-parsing the
 * whole file: read the newest `maxBytes` in chunks, jump between occurrences of the needle
 * bytes, and parse only the lines that contain them (or a pending call's id). What a line means
 * is the host's transcript format (the resume part's transcripts face); which calls are ours is
 * own-tools.ts; which lines are this session's, session-scope.ts; the judge of a result,
 * proof-judge.ts. Anything unreadable: not proven.
 */
import { closeSync, fstatSync, readSync } from 'node:fs';
import {
  isEntry,
  isJsonDocument,
  openTranscript,
  readDocumentRecords,
  TRANSCRIPT_READERS,
  type TranscriptEntry,
  type TranscriptFormat,
  type TranscriptReader,
} from '../../resume/transcripts/index.js';
import { ownProofTool, type ProofTool } from './own-tools.js';
import { type BootstrapProof, judge } from './proof-judge.js';
import { readHeadSession, SessionScope } from './session-scope.js';

/** Our proof-tool calls in a record. */
const ourCalls = (reader: TranscriptReader, entry: TranscriptEntry): { id: string; tool: ProofTool }[] =>
  reader.calls(entry).flatMap((call) => {
    const tool = ownProofTool(call);
    return tool ? [{ id: call.id, tool }] : [];
  });

/** The verdict on call `id` when the record holds its finished result. */
function verdictIn(
  reader: TranscriptReader,
  entry: TranscriptEntry,
  call: { id: string; tool: ProofTool },
): BootstrapProof | undefined {
  const outcome = reader.outcome(entry, call.id);
  return outcome ? judge(call.tool, outcome) : undefined;
}

/** Every line naming a proof tool holds one of these bytes. */
const NEEDLES = [Buffer.from('bootstrap_session'), Buffer.from('get_system_prompt')];
const NEWLINE = 0x0a;
/**
 * The scan gives up (not proven) past this: reads are synchronous, so the deadline is checked
 * between 1 MB chunks (a slow network file system, not a FIFO: those are refused at open).
 */
export const TRANSCRIPT_READ_TIMEOUT_MS = 5_000;
/** Read size: a reused buffer, so a 60 MB transcript costs 60 MB of copying and no more memory. */
const CHUNK = 1 << 20;

interface Line {
  start: number;
  end: number;
}

interface Call {
  id: string;
  tool: ProofTool;
  needle: Buffer;
  verdict?: BootstrapProof;
  /** The verdict came from the host's structured record: nothing overrides it. */
  structured?: true;
}

/** Takes this record's verdict on `call`: the first one found, unless a structured record speaks. */
function settle(reader: TranscriptReader, entry: TranscriptEntry, call: Call): void {
  if (call.structured) return;
  const verdict = verdictIn(reader, entry, call);
  if (!verdict) return;
  if (reader.isStructuredResult?.(entry)) {
    call.verdict = verdict;
    call.structured = true;
  } else {
    call.verdict ??= verdict;
  }
}

/** Calls in order of first appearance; the newest one with a verdict decides. */
class CallLog {
  readonly calls: Call[] = [];
  private readonly ids = new Set<string>();
  add(id: string, tool: ProofTool): Call | null {
    if (this.ids.has(id)) return null;
    this.ids.add(id);
    const call: Call = { id, tool, needle: Buffer.from(id) };
    this.calls.push(call);
    return call;
  }
}

function lineAround(buf: Buffer, at: number): Line {
  const start = buf.lastIndexOf(NEWLINE, at) + 1;
  const nl = buf.indexOf(NEWLINE, at);
  return { start, end: nl < 0 ? buf.length : nl };
}

function parseLine(buf: Buffer, line: Line): TranscriptEntry | null {
  try {
    const value = JSON.parse(buf.toString('utf8', line.start, line.end)) as unknown;
    return isEntry(value) ? value : null;
  } catch {
    return null;
  }
}

/** Every line containing `needle`, each once, in buffer order. */
function* linesWith(buf: Buffer, needle: Buffer, from = 0): Generator<Line> {
  let at = buf.indexOf(needle, from);
  while (at >= 0) {
    const line = lineAround(buf, at);
    yield line;
    at = buf.indexOf(needle, line.end + 1);
  }
}

/** Every line containing any of `needles`, each once, in buffer order. */
function linesWithAny(buf: Buffer, needles: Buffer[]): Line[] {
  const byStart = new Map<number, Line>();
  for (const needle of needles) for (const line of linesWith(buf, needle)) byStart.set(line.start, line);
  return [...byStart.values()].sort((a, b) => a.start - b.start);
}

/**
 * The newest `bootstrap_session` (or legacy `get_system_prompt`) call that has a finished
 * result decides. A call without a
 * result, an error result, a malformed or `false` packet, an unreadable file: not proven.
 * `format` is the host's transcript format (Claude Code's unless said otherwise). With a
 * `sessionId`, only that session's records count (session-scope.ts): a resumed, copied or
 * forked transcript's older bootstrap does not unlock a new session, nor does another
 * session's file.
 */
export function proveBootstrap(
  path: string,
  maxBytes: number,
  format: TranscriptFormat = 'claude',
  sessionId?: string | null,
): BootstrapProof {
  const reader = TRANSCRIPT_READERS[format];
  const log = new CallLog();
  let scope = new SessionScope(reader, sessionId ?? null);
  let truncated = false;
  try {
    const fd = openTranscript(path);
    try {
      const size = fstatSync(fd).size;
      if (reader.document && isJsonDocument(fd, size)) {
        const problem = readDocument(fd, size, maxBytes, reader, log, scope);
        if (problem) return { ok: false, reason: problem };
      } else {
        if (sessionId) scope = new SessionScope(reader, sessionId, readHeadSession(fd, size, reader));
        const read = readLines(
          fd,
          size,
          maxBytes,
          reader,
          log,
          scope,
          Date.now() + TRANSCRIPT_READ_TIMEOUT_MS,
        );
        if (read === 'timeout')
          return { ok: false, reason: `transcript read took over ${TRANSCRIPT_READ_TIMEOUT_MS / 1000} s` };
        truncated = read;
      }
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      reason:
        code === 'ENOENT'
          ? `no transcript at ${path}`
          : code === 'ENOTREG'
            ? `transcript unreadable (${(error as Error).message}, not a regular file)`
            : `transcript unreadable (${code ?? (error as Error).message})`,
    };
  }
  if (log.calls.length === 0) {
    return {
      ok: false,
      reason: `${
        truncated
          ? `no bootstrap_session call in the newest ${Math.round(maxBytes / 1048576)} MB of the transcript`
          : 'no bootstrap_session call in this session yet'
      }${scope.why()}`,
    };
  }
  for (let i = log.calls.length - 1; i >= 0; i--) {
    const verdict = log.calls[i]!.verdict;
    if (verdict) return verdict;
  }
  return { ok: false, reason: 'bootstrap_session was called but has no result yet', pending: true };
}

/** One forward pass over the newest `maxBytes`, chunk by chunk; true when the file was longer. */
function readLines(
  fd: number,
  size: number,
  maxBytes: number,
  reader: TranscriptReader,
  log: CallLog,
  scope: SessionScope,
  deadline: number,
): boolean | 'timeout' {
  let pos = Math.max(0, size - maxBytes);
  const truncated = pos > 0;
  let buf = Buffer.allocUnsafe(2 * CHUNK);
  let carry = 0;
  while (pos < size) {
    if (buf.length - carry < CHUNK) {
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, carry);
      buf = bigger;
    }
    if (Date.now() > deadline) return 'timeout';
    const n = readSync(fd, buf, carry, Math.min(CHUNK, size - pos), pos);
    if (n === 0) break;
    pos += n;
    const filled = carry + n;
    const cut = pos < size ? buf.lastIndexOf(NEWLINE, filled - 1) + 1 : filled;
    const lines = buf.subarray(0, cut);
    scope.enterChunk(lines, (line) => parseLine(lines, line));
    scanLines(lines, reader, log, scope);
    scope.leaveChunk();
    carry = filled - cut;
    buf.copy(buf, 0, cut, filled);
  }
  return truncated;
}

/** Complete lines only: new calls first, then results for every call still waiting. */
function scanLines(buf: Buffer, reader: TranscriptReader, log: CallLog, scope: SessionScope): void {
  const firstNew = log.calls.length;
  const startOf = new Map<Call, number>();
  for (const line of linesWithAny(buf, NEEDLES)) {
    const entry = parseLine(buf, line);
    if (!entry) continue;
    const calls = ourCalls(reader, entry);
    if (calls.length > 0 && !scope.admits(entry, line.start)) {
      scope.skipped(entry, line.start);
      continue;
    }
    for (const { id, tool } of calls) {
      const call = log.add(id, tool);
      if (call) startOf.set(call, line.start);
    }
  }
  for (let i = 0; i < log.calls.length; i++) {
    const call = log.calls[i]!;
    // Settled, unless a structured record may still outrank the text's verdict.
    if (call.structured || (call.verdict && !reader.isStructuredResult)) continue;
    for (const line of linesWith(buf, call.needle, i >= firstNew ? startOf.get(call) : 0)) {
      const entry = parseLine(buf, line);
      if (entry && scope.admits(entry, line.start)) settle(reader, entry, call);
      if (call.structured) break;
    }
  }
}

/** Parses the whole document (it has no lines to skip to); a problem string when it cannot. */
function readDocument(
  fd: number,
  size: number,
  maxBytes: number,
  reader: TranscriptReader,
  log: CallLog,
  scope: SessionScope,
): string | null {
  const read = readDocumentRecords(fd, size, maxBytes, reader);
  if ('problem' in read) {
    if (read.problem === 'too_large')
      return `the transcript is one JSON document larger than the ${Math.round(maxBytes / 1048576)} MB scan window`;
    return read.problem === 'not_json'
      ? 'transcript unreadable (not valid JSON)'
      : 'transcript unreadable (no messages)';
  }
  for (const record of read.records) {
    scope.step(record);
    if (!scope.admits(record)) {
      if (ourCalls(reader, record).length > 0) scope.skipped(record);
      continue;
    }
    for (const { id, tool } of ourCalls(reader, record)) log.add(id, tool);
    for (const call of log.calls) settle(reader, record, call);
  }
  return null;
}
