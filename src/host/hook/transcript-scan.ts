/**
 * Finds whether a transcript proves a successful `bootstrap_session`, without JSON-parsing the
 * whole file: read the newest `maxBytes` in chunks, jump between occurrences of the needle
 * bytes, and parse only the lines that contain them (or a pending call's id). What a line means
 * is the host's transcript format (the resume part's transcripts face); which calls are ours is
 * own-tools.ts; the judge of the result is below. Anything unreadable: not proven.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import {
  contentTexts,
  isEntry,
  isJsonDocument,
  readDocumentRecords,
  type ToolOutcome,
  TRANSCRIPT_READERS,
  type TranscriptEntry,
  type TranscriptFormat,
  type TranscriptReader,
} from '../../resume/transcripts/index.js';
import { isOwnBootstrap } from './own-tools.js';

export type BootstrapProof = { ok: true; detail: string } | { ok: false; reason: string };

const failed = (why: string): BootstrapProof => ({ ok: false, reason: `bootstrap_session ${why}` });

/**
 * Judges the result's text: some text (or the texts joined) parses to a JSON packet with
 * `mind_contract_available: true`. A text that is itself a JSON array of content blocks (how
 * Codex stores MCP content) is opened once.
 */
function judgeTexts(texts: string[]): BootstrapProof {
  if (texts.length === 0) return failed('result has no text content');
  const candidates = texts.length > 1 ? [...texts, texts.join('')] : [...texts];
  const given = candidates.length;
  let sawFalse = false;
  for (let i = 0; i < candidates.length; i++) {
    let value: unknown;
    try {
      value = JSON.parse(candidates[i]!);
    } catch {
      continue;
    }
    if (Array.isArray(value) && i < given) candidates.push(...contentTexts(value));
    const flag = isEntry(value) ? value.mind_contract_available : undefined;
    if (flag === true)
      return { ok: true, detail: 'bootstrap_session succeeded with mind_contract_available: true' };
    if (flag === false) sawFalse = true;
  }
  return sawFalse
    ? failed('reported mind_contract_available: false (the mind is degraded)')
    : failed('result is not a JSON packet with mind_contract_available');
}

function judge(outcome: ToolOutcome): BootstrapProof {
  if (outcome.status === 'error') return failed('returned an error');
  if (outcome.status === 'cancelled') return failed('was cancelled');
  return judgeTexts(outcome.texts);
}

/** Ids of our `bootstrap_session` calls in a record. */
const ourCalls = (reader: TranscriptReader, entry: TranscriptEntry): string[] =>
  reader
    .calls(entry)
    .filter(isOwnBootstrap)
    .map((call) => call.id);

/** The verdict on call `id` when the record holds its finished result. */
function verdictIn(reader: TranscriptReader, entry: TranscriptEntry, id: string): BootstrapProof | undefined {
  const outcome = reader.outcome(entry, id);
  return outcome ? judge(outcome) : undefined;
}

const NEEDLE = Buffer.from('bootstrap_session');
const NEWLINE = 0x0a;
/** Read size: a reused buffer, so a 60 MB transcript costs 60 MB of copying and no more memory. */
const CHUNK = 1 << 20;

interface Line {
  start: number;
  end: number;
}

interface Call {
  id: string;
  needle: Buffer;
  verdict?: BootstrapProof;
}

/** Calls in order of first appearance; the newest one with a verdict decides. */
class CallLog {
  readonly calls: Call[] = [];
  private readonly ids = new Set<string>();
  add(id: string): Call | null {
    if (this.ids.has(id)) return null;
    this.ids.add(id);
    const call = { id, needle: Buffer.from(id) };
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

/**
 * The newest `bootstrap_session` call that has a finished result decides. A call without a
 * result, an error result, a malformed or `false` packet, an unreadable file: not proven.
 * `format` is the host's transcript format (Claude Code's unless said otherwise).
 */
export function proveBootstrap(
  path: string,
  maxBytes: number,
  format: TranscriptFormat = 'claude',
): BootstrapProof {
  const reader = TRANSCRIPT_READERS[format];
  const log = new CallLog();
  let truncated = false;
  try {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      if (reader.document && isJsonDocument(fd, size)) {
        const problem = readDocument(fd, size, maxBytes, reader, log);
        if (problem) return { ok: false, reason: problem };
      } else {
        truncated = readLines(fd, size, maxBytes, reader, log);
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
          : `transcript unreadable (${code ?? (error as Error).message})`,
    };
  }
  if (log.calls.length === 0) {
    return {
      ok: false,
      reason: truncated
        ? `no bootstrap_session call in the newest ${Math.round(maxBytes / 1048576)} MB of the transcript`
        : 'no bootstrap_session call in this session yet',
    };
  }
  for (let i = log.calls.length - 1; i >= 0; i--) {
    const verdict = log.calls[i]!.verdict;
    if (verdict) return verdict;
  }
  return { ok: false, reason: 'bootstrap_session was called but has no result yet' };
}

/** One forward pass over the newest `maxBytes`, chunk by chunk; true when the file was longer. */
function readLines(
  fd: number,
  size: number,
  maxBytes: number,
  reader: TranscriptReader,
  log: CallLog,
): boolean {
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
    const n = readSync(fd, buf, carry, Math.min(CHUNK, size - pos), pos);
    if (n === 0) break;
    pos += n;
    const filled = carry + n;
    const cut = pos < size ? buf.lastIndexOf(NEWLINE, filled - 1) + 1 : filled;
    scanLines(buf.subarray(0, cut), reader, log);
    carry = filled - cut;
    buf.copy(buf, 0, cut, filled);
  }
  return truncated;
}

/** Complete lines only: new calls first, then results for every call still waiting. */
function scanLines(buf: Buffer, reader: TranscriptReader, log: CallLog): void {
  const firstNew = log.calls.length;
  const startOf = new Map<Call, number>();
  for (const line of linesWith(buf, NEEDLE)) {
    const entry = parseLine(buf, line);
    if (!entry) continue;
    for (const id of ourCalls(reader, entry)) {
      const call = log.add(id);
      if (call) startOf.set(call, line.start);
    }
  }
  for (let i = 0; i < log.calls.length; i++) {
    const call = log.calls[i]!;
    if (call.verdict) continue;
    for (const line of linesWith(buf, call.needle, i >= firstNew ? startOf.get(call) : 0)) {
      const entry = parseLine(buf, line);
      const verdict = entry ? verdictIn(reader, entry, call.id) : undefined;
      if (verdict) {
        call.verdict = verdict;
        break;
      }
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
    for (const id of ourCalls(reader, record)) log.add(id);
    for (const call of log.calls) call.verdict ??= verdictIn(reader, record, call.id);
  }
  return null;
}
