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
  return (
    JSON.stringify(value, (_key, v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(
            Object.entries(v as Record<string, unknown>).sort(([a], [b]) => byCodeUnit(a, b)),
          )
        : v,
    ) ?? 'null'
  );
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
  return JSON.stringify(value) ?? String(value);
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/** The args digest an event stores: stable JSON, clipped, and its hash. */
export function argsDigest(args: unknown): { args: string; args_hash: string } {
  const text = clip(stableJson(args ?? {}), CLIP.args);
  return { args: text, args_hash: hash(text) };
}
