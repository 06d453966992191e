/**
 * Finds whether a transcript proves a successful `bootstrap_session`, without JSON-parsing the
 * whole file: read the newest `maxBytes` as one Buffer, jump between occurrences of the needle
 * bytes, and parse only the lines that contain them. Anything unreadable counts as "not proven".
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { ownTool } from './own-tools.js';

export type BootstrapProof = { ok: true; detail: string } | { ok: false; reason: string };

const NEEDLE = Buffer.from('bootstrap_session');
const NEWLINE = 0x0a;

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

/** Every line containing `needle`, each once, in buffer order. */
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

/** Read size: a reused buffer, so a 60 MB transcript costs 60 MB of copying and no more memory. */
const CHUNK = 1 << 20;

interface Call {
  id: string;
  needle: Buffer;
  verdict?: BootstrapProof;
}

/**
 * The newest `bootstrap_session` tool_use that has a matching tool_result decides. A tool_use
 * without a result, an error result, a malformed or `false` packet, an unreadable file: not proven.
 * One forward pass over the newest `maxBytes`, in chunks; only lines holding the needle (or a
 * pending call's id) are parsed.
 */
export function proveBootstrap(path: string, maxBytes: number): BootstrapProof {
  const calls: Call[] = [];
  let truncated = false;
  try {
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      let pos = Math.max(0, size - maxBytes);
      truncated = pos > 0;
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
        scanLines(buf.subarray(0, cut), calls);
        carry = filled - cut;
        buf.copy(buf, 0, cut, filled);
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
  if (calls.length === 0) {
    return {
      ok: false,
      reason: truncated
        ? `no bootstrap_session call in the newest ${Math.round(maxBytes / 1048576)} MB of the transcript`
        : 'no bootstrap_session call in this session yet',
    };
  }
  for (let i = calls.length - 1; i >= 0; i--) {
    const verdict = calls[i]!.verdict;
    if (verdict) return verdict;
  }
  return { ok: false, reason: 'bootstrap_session was called but has no result yet' };
}

/** Complete lines only: new bootstrap calls first, then results for every call still waiting. */
function scanLines(buf: Buffer, calls: Call[]): void {
  const firstNew = calls.length;
  const startOf = new Map<Call, number>();
  for (const line of linesWith(buf, NEEDLE)) {
    const entry = parseLine(buf, line);
    if (!entry) continue;
    for (const block of contentBlocks(entry)) {
      if (
        block.type === 'tool_use' &&
        typeof block.name === 'string' &&
        ownTool(block.name) === 'bootstrap_session' &&
        typeof block.id === 'string'
      ) {
        const call = { id: block.id, needle: Buffer.from(block.id) };
        calls.push(call);
        startOf.set(call, line.end);
      }
    }
  }
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!;
    if (call.verdict) continue;
    for (const line of linesWith(buf, call.needle, i >= firstNew ? startOf.get(call) : 0)) {
      const entry = parseLine(buf, line);
      const result =
        entry && contentBlocks(entry).find((b) => b.type === 'tool_result' && b.tool_use_id === call.id);
      if (result) {
        call.verdict = judgeResult(result);
        break;
      }
    }
  }
}
