import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { cutFront } from './self-state.js';

export interface ExtractOptions {
  /** Stop once this many characters of the newest text are collected. Default 4,000. */
  maxChars?: number;
  /** Bytes read per step, from the end of the file backwards. Default 64 KiB. */
  chunkBytes?: number;
  /** A longer line (a huge tool result) is skipped without being held in memory. Default 1 MiB. */
  maxLineBytes?: number;
  /** Give up after reading this much without finding text. Default 64 MiB. */
  maxScanBytes?: number;
}

/** The agent's last words from a Claude Code transcript, with what it took to find them. */
export interface TranscriptTail {
  /** Text (and non-empty thinking) of the last assistant turn, verbatim, oldest first. */
  stream_tail: string;
  /** `sessionId` of the newest line that had one. */
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
  /** Bytes of long non-tool-result lines read a second time to be parsed. */
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

interface Block {
  type?: unknown;
  text?: unknown;
  thinking?: unknown;
}

interface Line {
  type?: unknown;
  timestamp?: unknown;
  sessionId?: unknown;
  isSidechain?: unknown;
  isMeta?: unknown;
  message?: { id?: unknown; content?: unknown };
}

/**
 * Reads a Claude Code transcript JSONL from its END in bounded chunks and returns the last
 * assistant turn's words: `text` blocks, plus `thinking` only when non-empty (hosts often
 * redact it to ""), walking past tool calls and tool results (`type:"user"` lines holding
 * `tool_result` blocks) up to the user prompt that began the turn. Tool-only turns are passed
 * over to the last turn that said something. A torn or unparsable line is skipped; subagent
 * (sidechain) lines are ignored. Memory stays near chunkBytes + maxLineBytes whatever the file
 * size. Returns null when the file holds no assistant words within the scan limit.
 * Synchronous: hooks run it once and exit, with no event loop to feed.
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

  const handle = (raw: Buffer): void => {
    const text = raw.toString('utf8').trim();
    if (text === '') return;
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      result.unparsed_lines++;
      return;
    }
    if (typeof line !== 'object' || line === null || line.isSidechain === true) return;
    if (result.session_id === null && typeof line.sessionId === 'string') result.session_id = line.sessionId;
    const at = typeof line.timestamp === 'string' ? Date.parse(line.timestamp) : Number.NaN;
    if (!promptSeen && at < oldest) {
      oldest = at;
      result.no_prompt_since = line.timestamp as string;
    }
    const content = line.message?.content;
    if (line.type === 'user') {
      if (line.isMeta === true || isToolResultOnly(content)) return;
      if (!promptSeen && Number.isFinite(at)) result.last_prompt_at = line.timestamp as string;
      promptSeen = true;
      // A prompt: the start of the turn. Before any words were found, keep walking back.
      if (newestFirst.length > 0) {
        result.turn_complete = true;
        done = true;
      }
      return;
    }
    if (line.type !== 'assistant') return;
    const blocks: Block[] =
      typeof content === 'string' ? [{ type: 'text', text: content }] : asBlocks(content);
    const messageId = typeof line.message?.id === 'string' ? line.message.id : '';
    for (let i = blocks.length - 1; i >= 0 && !done; i--) {
      const block = blocks[i]!;
      let words: string | undefined;
      if (block.type === 'text' && typeof block.text === 'string') {
        words = block.text;
        if (words.trim() !== '') result.text_blocks++;
      } else if (block.type === 'thinking') {
        const thinking = typeof block.thinking === 'string' ? block.thinking : '';
        if (thinking.trim() === '') {
          result.empty_thinking++;
          continue;
        }
        words = thinking;
        result.thinking_blocks++;
      }
      if (words === undefined || words.trim() === '') continue;
      // Streaming writes may repeat a block of the same message on a later line.
      const key = `${messageId}\u0000${words}`;
      if (messageId && seen.has(key)) continue;
      seen.add(key);
      newestFirst.push(words.trim());
      chars += words.length;
      if (chars >= maxChars) done = true;
    }
  };

  const fd = openSync(path, 'r');
  try {
    const head = Buffer.allocUnsafe(SNIFF_HEAD_BYTES);
    // A line too long to hold while scanning is re-read by offset once its start is known,
    // and only when it is not a tool result (most long lines are) and not over maxLineBytes.
    const handleLong = (start: number, end: number): void => {
      const length = end - start;
      const headLength = readSync(fd, head, 0, Math.min(SNIFF_HEAD_BYTES, length), start);
      if (isToolResultHead(head.subarray(0, headLength))) return;
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
    let pos = fstatSync(fd).size;
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
  if (newestFirst.length === 0) return null;
  result.stream_tail = cutFront(newestFirst.reverse().join('\n\n'), maxChars);
  return result;
}

/** Lines longer than this are not held while scanning; their head is sniffed first. */
const SNIFF_LINE_BYTES = 16 * 1024;
const SNIFF_HEAD_BYTES = 2048;
const EMPTY = Buffer.alloc(0);
const USER_TYPE = /"type"\s*:\s*"user"/;
const TOOL_RESULT_TYPE = /"type"\s*:\s*"tool_result"/;

/**
 * A big tool result need not be parsed to be passed over: in Claude Code lines the line type
 * and the first block's type sit in the first few hundred bytes, and unescaped `"type":"…"`
 * can only be a real key there, never text inside a string. This keeps a 50 MB scan from
 * turning every megabyte of tool output into garbage strings and objects.
 */
function isToolResultHead(head: Buffer): boolean {
  const text = head.toString('latin1');
  return USER_TYPE.test(text) && TOOL_RESULT_TYPE.test(text);
}

function asBlocks(content: unknown): Block[] {
  return Array.isArray(content) ? content.filter((b): b is Block => typeof b === 'object' && b !== null) : [];
}

/** A `type:"user"` line that only carries tool results is part of the assistant's turn. */
function isToolResultOnly(content: unknown): boolean {
  const blocks = asBlocks(content);
  return blocks.length > 0 && blocks.every((b) => b.type === 'tool_result');
}
