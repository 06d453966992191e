/**
 * Finds whether a transcript proves a successful `bootstrap_session`, without JSON-parsing the
 * whole file: read the newest `maxBytes` as one Buffer, jump between occurrences of the needle
 * bytes, and parse only the lines that contain them. Anything unreadable counts as "not proven".
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export type BootstrapProof = { ok: true; detail: string } | { ok: false; reason: string };

const NEEDLE = Buffer.from('bootstrap_session');
const NEWLINE = 0x0a;
/** `bootstrap_session`, bare or under any server prefix (`mcp__firstlight__…`, `firstlight-…`, `firstlight/…`). */
const TOOL_NAME = /(^|__|[-./:])bootstrap_session$/;

/** The newest `maxBytes` of the file (the start of a cut line is dropped by the line parser). */
function readTail(path: string, maxBytes: number): { buf: Buffer; truncated: boolean } {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - maxBytes);
    const buf = Buffer.allocUnsafe(size - start);
    let off = 0;
    while (off < buf.length) {
      const n = readSync(fd, buf, off, buf.length - off, start + off);
      if (n === 0) break;
      off += n;
    }
    return { buf: buf.subarray(0, off), truncated: start > 0 };
  } finally {
    closeSync(fd);
  }
}

interface Line {
  start: number;
  end: number;
}

function lineAround(buf: Buffer, at: number): Line {
  const start = buf.lastIndexOf(NEWLINE, at) + 1;
  const nl = buf.indexOf(NEWLINE, at);
  return { start, end: nl < 0 ? buf.length : nl };
}

function parseLine(buf: Buffer, line: Line): Record<string, unknown> | null {
  try {
    const value = JSON.parse(buf.toString('utf8', line.start, line.end)) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function contentBlocks(entry: Record<string, unknown>): Record<string, unknown>[] {
  const message = entry.message as { content?: unknown } | undefined;
  const content = message?.content ?? entry.content;
  return Array.isArray(content)
    ? (content.filter((c) => typeof c === 'object' && c !== null) as Record<string, unknown>[])
    : [];
}

/** Every line containing `needle`, each once, in file order. */
function* linesWith(buf: Buffer, needle: Buffer, from = 0): Generator<Line> {
  let at = buf.indexOf(needle, from);
  while (at >= 0) {
    const line = lineAround(buf, at);
    yield line;
    at = buf.indexOf(needle, line.end + 1);
  }
}

/** Judges one tool_result block: not an error, and its text parses to `mind_contract_available: true`. */
export function judgeResult(block: Record<string, unknown>): BootstrapProof {
  if (block.is_error === true) return { ok: false, reason: 'bootstrap_session returned an error' };
  const content = block.content;
  const texts =
    typeof content === 'string'
      ? [content]
      : Array.isArray(content)
        ? content
            .filter(
              (c) =>
                (c as { type?: unknown })?.type === 'text' &&
                typeof (c as { text?: unknown }).text === 'string',
            )
            .map((c) => (c as { text: string }).text)
        : [];
  if (texts.length === 0) return { ok: false, reason: 'bootstrap_session result has no text content' };
  const candidates = texts.length > 1 ? [...texts, texts.join('')] : texts;
  let sawFalse = false;
  for (const text of candidates) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    const flag = (value as { mind_contract_available?: unknown } | null)?.mind_contract_available;
    if (flag === true)
      return { ok: true, detail: 'bootstrap_session succeeded with mind_contract_available: true' };
    if (flag === false) sawFalse = true;
  }
  return sawFalse
    ? {
        ok: false,
        reason: 'bootstrap_session reported mind_contract_available: false (the mind is degraded)',
      }
    : { ok: false, reason: 'bootstrap_session result is not a JSON packet with mind_contract_available' };
}

/**
 * The newest `bootstrap_session` tool_use that has a matching tool_result decides. A tool_use
 * without a result, an error result, a malformed or `false` packet, an unreadable file: not proven.
 */
export function proveBootstrap(path: string, maxBytes: number): BootstrapProof {
  let buf: Buffer;
  let truncated: boolean;
  try {
    ({ buf, truncated } = readTail(path, maxBytes));
  } catch (error) {
    return {
      ok: false,
      reason: `transcript unreadable (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    };
  }
  const calls: { id: string; after: number }[] = [];
  for (const line of linesWith(buf, NEEDLE)) {
    const entry = parseLine(buf, line);
    if (!entry) continue;
    for (const block of contentBlocks(entry)) {
      if (
        block.type === 'tool_use' &&
        typeof block.name === 'string' &&
        TOOL_NAME.test(block.name) &&
        typeof block.id === 'string'
      ) {
        calls.push({ id: block.id, after: line.end });
      }
    }
  }
  if (calls.length === 0) {
    return {
      ok: false,
      reason: truncated
        ? `no bootstrap_session call in the newest ${Math.round(maxBytes / 1048576)} MB of the transcript`
        : 'no bootstrap_session call in this session yet',
    };
  }
  for (const call of calls.reverse()) {
    for (const line of linesWith(buf, Buffer.from(call.id), call.after)) {
      const entry = parseLine(buf, line);
      if (!entry) continue;
      const result = contentBlocks(entry).find((b) => b.type === 'tool_result' && b.tool_use_id === call.id);
      if (result) return judgeResult(result);
    }
  }
  return { ok: false, reason: 'bootstrap_session was called but has no readable result' };
}
