import { byCodeUnit, sha256Hex } from '../../core/text/index.js';

/** Field limits: an event line stays a few KB however large the call was. */
export const CLIP = { args: 2000, result: 4000, expected: 1000, observation: 4000, error: 1000 } as const;

/**
 * `ev_<ms base36>_<8 hex>`: sortable by time, unique across processes. The 32 random bits need
 * not be unpredictable, only distinct: Math.random (seeded per process) spares the hook that
 * writes most events loading node:crypto.
 */
export function eventId(now: Date): string {
  const random = Math.floor(Math.random() * 0x1_0000_0000)
    .toString(16)
    .padStart(8, '0');
  return `ev_${now.getTime().toString(36)}_${random}`;
}

/** The first 16 hex digits of the text's SHA-256. */
export function hash(text: string): string {
  return sha256Hex(text).slice(0, 16);
}

/** JSON with sorted keys, so the same args hash the same however they were ordered. */
export function stableJson(value: unknown): string {
  const sorted = (_key: string, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => byCodeUnit(a, b)))
      : v;
  return boundedJson(value, sorted) ?? 'null';
}

/** Below this depth a value is cut (boundedJson); the marker says so in its place. */
export const MAX_JSON_DEPTH = 64;
export const TOO_DEEP = `[nested deeper than ${MAX_JSON_DEPTH} levels: cut]`;

/**
 * JSON.stringify, and for a value nested too deep for it (JSON.stringify recurses: a tool
 * response nested ~5,000 deep overflowed the PostToolUse hook's stack and its observation was
 * lost, issue 35) the same value cut at {@link MAX_JSON_DEPTH} levels with a marker. The common
 * case pays nothing: the cut copy is made only after the engine gave up.
 */
export function boundedJson(
  value: unknown,
  replacer?: (this: unknown, key: string, value: unknown) => unknown,
): string | undefined {
  try {
    return JSON.stringify(value, replacer);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return JSON.stringify(cutDeep(value), replacer);
  }
}

/** A copy of `value` whose objects below MAX_JSON_DEPTH are the TOO_DEEP marker, made without recursion. */
export function cutDeep(value: unknown): unknown {
  const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null;
  if (!isObject(value)) return value;
  const shell = (v: object) => (Array.isArray(v) ? new Array<unknown>(v.length) : {});
  const root = shell(value);
  const work: { from: object; to: Record<string, unknown>; depth: number }[] = [
    { from: value, to: root as Record<string, unknown>, depth: 1 },
  ];
  while (work.length > 0) {
    const { from, to, depth } = work.pop()!;
    for (const [key, child] of Object.entries(from)) {
      if (!isObject(child) || typeof (child as { toJSON?: unknown }).toJSON === 'function') to[key] = child;
      else if (depth >= MAX_JSON_DEPTH) to[key] = TOO_DEEP;
      else {
        const copy = shell(child) as Record<string, unknown>;
        to[key] = copy;
        work.push({ from: child, to: copy, depth: depth + 1 });
      }
    }
  }
  return root;
}

/** A tool result as text: strings as they are, MCP content blocks by their text, else JSON. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  const content = (value as { content?: unknown })?.content;
  if (Array.isArray(content)) {
    const texts = content
      .map((c) => (c as { text?: unknown })?.text)
      .filter((t): t is string => typeof t === 'string');
    if (texts.length > 0) return texts.join('\n');
  }
  return boundedJson(value) ?? String(value);
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** The args digest an event stores: stable JSON, clipped, and its hash. */
export function argsDigest(args: unknown): { args: string; args_hash: string } {
  const text = clip(stableJson(args ?? {}), CLIP.args);
  return { args: text, args_hash: hash(text) };
}
