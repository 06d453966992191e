import { closeSync, fstatSync, readSync } from 'node:fs';
import { cutFront } from './self-state.js';
import {
  isEntry,
  isJsonDocument,
  openTranscript,
  readDocumentRecords,
  TRANSCRIPT_READERS,
  type TranscriptEntry,
  type TranscriptFormat,
  type TurnRecord,
} from './transcripts/index.js';

export interface ExtractOptions {
  /** The host's transcript format (what its lines mean). Default `claude`. */
  format?: TranscriptFormat;
  /** Stop once this many characters of the newest text are collected. Default 4,000. */
  maxChars?: number;
  /** Bytes read per step, from the end of the file backwards. Default 64 KiB. */
  chunkBytes?: number;
  /** A longer line (a huge tool result) is skipped without being held in memory. Default 1 MiB. */
  maxLineBytes?: number;
  /** Give up after reading this much without finding text. Default 64 MiB. */
  maxScanBytes?: number;
}

/** The agent's last words from a host's transcript, with what it took to find them. */
export interface TranscriptTail {
  /** Text (and non-empty thinking) of the last assistant turn, verbatim, oldest first. */
  stream_tail: string;
  /** The session id the newest record that had one names. */
  session_id: string | null;
  text_blocks: number;
  thinking_blocks: number;
  /** Thinking blocks skipped because their text was empty (redacted by the host). */
  empty_thinking: number;
  /** Lines that did not parse (a torn last line, a partial write) and were skipped. */
  unparsed_lines: number;
  /** Lines over maxLineBytes skipped unread. */
  oversize_lines: number;
  bytes_read: number;
  /** Bytes of long non-tool-output lines read a second time to be parsed. */
  bytes_reread: number;
  /** Largest amount of file data held at once (the memory bound). */
  peak_buffer_bytes: number;
  /** True when a user prompt bounded the turn; false when a limit or the file start stopped it. */
  turn_complete: boolean;
  /** `timestamp` of the newest user prompt the scan met (null: none met, or it had none). */
  last_prompt_at: string | null;
  /** The oldest `timestamp` read before meeting a user prompt: no prompt came after it. */
  no_prompt_since: string | null;
}

/**
 * Reads a host's transcript (Claude Code's by default; Codex CLI's rollout and Gemini CLI's chat
 * file with `format`; what their records mean is in ./transcripts/) from its END in bounded
 * chunks and returns the last assistant turn's words: text, plus thinking only when non-empty
 * (hosts often redact it to ""), walking past tool calls and tool results up to the user prompt
 * that began the turn. Tool-only turns are passed over to the last turn that said something. A
 * torn or unparsable line is skipped; subagent (sidechain) lines are ignored; of a record the
 * host re-appended, only the newest version counts. Memory stays near chunkBytes + maxLineBytes
 * whatever the file size (a Gemini CLI session that is one JSON document, the older form, is
 * read whole up to maxScanBytes). Returns null when the file holds no assistant words within
 * the scan limit. Synchronous: hooks run it once and exit, with no event loop to feed.
 */
export function extractTranscriptTail(path: string, options: ExtractOptions = {}): TranscriptTail | null {
  const maxChars = options.maxChars ?? 4000;
  const chunkBytes = options.chunkBytes ?? 64 * 1024;
  const maxLineBytes = options.maxLineBytes ?? 1024 * 1024;
  const maxScanBytes = options.maxScanBytes ?? 64 * 1024 * 1024;
  const result: TranscriptTail = {
    stream_tail: '',
    session_id: null,
    text_blocks: 0,
    thinking_blocks: 0,
    empty_thinking: 0,
    unparsed_lines: 0,
    oversize_lines: 0,
    bytes_read: 0,
    bytes_reread: 0,
    peak_buffer_bytes: 0,
    turn_complete: false,
    last_prompt_at: null,
    no_prompt_since: null,
  };
  const newestFirst: string[] = [];
  const seen = new Set<string>();
  let chars = 0;
  let done = false;
  let promptSeen = false;
  let oldest = Number.POSITIVE_INFINITY;

  const reader = TRANSCRIPT_READERS[options.format ?? 'claude'];
  const versions = new Set<string>();
  let rewoundTo: string | null = null;

  const take = (record: TurnRecord): void => {
    if (rewoundTo !== null) {
      if (record.key === rewoundTo) rewoundTo = null;
      return;
    }
    if (record.rewindTo !== undefined) {
      rewoundTo = record.rewindTo;
      return;
    }
    if (record.key !== undefined) {
      if (versions.has(record.key)) return; // an older version of a record already read
      versions.add(record.key);
    }
    if (result.session_id === null && record.sessionId !== undefined) result.session_id = record.sessionId;
    const at = record.at !== undefined ? Date.parse(record.at) : Number.NaN;
    if (!promptSeen && at < oldest) {
      oldest = at;
      result.no_prompt_since = record.at as string;
    }
    if (record.prompt) {
      if (!promptSeen && Number.isFinite(at)) result.last_prompt_at = record.at as string;
      promptSeen = true;
      // A prompt: the start of the turn. Before any words were found, keep walking back.
      if (newestFirst.length > 0) {
        result.turn_complete = true;
        done = true;
      }
      return;
    }
    const words = record.words ?? [];
    for (let i = words.length - 1; i >= 0 && !done; i--) {
      const { text, thinking, key } = words[i]!;
      const empty = text.trim() === '';
      if (thinking && empty) {
        result.empty_thinking++;
        continue;
      }
      if (!empty) result[thinking ? 'thinking_blocks' : 'text_blocks']++;
      if (empty) continue;
      // Streaming writes may repeat a block of the same message on a later line.
      if (key !== undefined) {
        if (seen.has(key)) continue;
        seen.add(key);
      }
      newestFirst.push(text.trim());
      chars += text.length;
      if (chars >= maxChars) done = true;
    }
  };
  const takeEntry = (entry: TranscriptEntry): void => {
    const records = reader.turn(entry);
    for (let i = records.length - 1; i >= 0 && !done; i--) take(records[i]!);
  };

  const handle = (raw: Buffer): void => {
    const text = raw.toString('utf8').trim();
    if (text === '') return;
    let entry: unknown;
    try {
      entry = JSON.parse(text);
    } catch {
      result.unparsed_lines++;
      return;
    }
    if (isEntry(entry)) takeEntry(entry);
  };

  const fd = openTranscript(path);
  try {
    const size = fstatSync(fd).size;
    if (reader.document && isJsonDocument(fd, size)) {
      readDocument(fd, size);
      return finish();
    }
    const head = Buffer.allocUnsafe(SNIFF_HEAD_BYTES);
    // A line too long to hold while scanning is re-read by offset once its start is known,
    // and only when it is not a tool's output (most long lines are) and not over maxLineBytes.
    const handleLong = (start: number, end: number): void => {
      const length = end - start;
      const headLength = readSync(fd, head, 0, Math.min(SNIFF_HEAD_BYTES, length), start);
      if (reader.isToolOutputHead(head.toString('latin1', 0, headLength))) return;
      if (length > maxLineBytes) {
        result.oversize_lines++;
        return;
      }
      const line = Buffer.allocUnsafe(length);
      readSync(fd, line, 0, length, start);
      result.bytes_reread += length;
      result.peak_buffer_bytes = Math.max(result.peak_buffer_bytes, chunkBytes + length);
      handle(line);
    };
    let pos = size;
    let lineEnd = pos;
    // The newest bytes of the line being assembled, or null once it outgrew SNIFF_LINE_BYTES.
    let pending: Buffer | null = EMPTY;
    const chunk = Buffer.allocUnsafe(chunkBytes);
    while (pos > 0 && !done && result.bytes_read < maxScanBytes) {
      const len = Math.min(chunkBytes, pos);
      pos -= len;
      readSync(fd, chunk, 0, len, pos);
      result.bytes_read += len;
      result.peak_buffer_bytes = Math.max(result.peak_buffer_bytes, len + (pending?.length ?? 0));
      // Complete lines in this chunk, newest first; the bytes before the first newline belong
      // to a line that started in an earlier chunk.
      let end = len;
      while (end > 0 && !done) {
        const nl = chunk.lastIndexOf(0x0a, end - 1);
        if (nl < 0) break;
        if (pending === null) handleLong(pos + nl + 1, lineEnd);
        else {
          const piece = chunk.subarray(nl + 1, end);
          handle(pending.length === 0 ? piece : Buffer.concat([piece, pending]));
        }
        pending = EMPTY;
        lineEnd = pos + nl;
        end = nl;
      }
      if (done || pending === null) continue;
      pending =
        end + pending.length > SNIFF_LINE_BYTES ? null : Buffer.concat([chunk.subarray(0, end), pending]);
    }
    if (!done && pos === 0 && lineEnd > 0) {
      if (pending === null) handleLong(0, lineEnd);
      else handle(pending);
    }
  } finally {
    closeSync(fd);
  }
  return finish();

  /** A whole-file JSON document, newest record first; one over maxScanBytes is not read. */
  function readDocument(fd: number, size: number): void {
    const read = readDocumentRecords(fd, size, maxScanBytes, reader);
    if ('problem' in read && read.problem === 'too_large') return;
    result.bytes_read = size;
    result.peak_buffer_bytes = size;
    const records = 'records' in read ? read.records : [];
    if ('problem' in read && read.problem === 'not_json') result.unparsed_lines++;
    for (let i = records.length - 1; i >= 0 && !done; i--) takeEntry(records[i]!);
  }

  function finish(): TranscriptTail | null {
    if (newestFirst.length === 0) return null;
    result.stream_tail = cutFront(newestFirst.reverse().join('\n\n'), maxChars);
    return result;
  }
}

/** Lines longer than this are not held while scanning; their head is sniffed first. */
const SNIFF_LINE_BYTES = 16 * 1024;
const SNIFF_HEAD_BYTES = 2048;
const EMPTY = Buffer.alloc(0);
