import { estimateTokens } from '../core/index.js';

/**
 * Surface post-processing: emoji by voice and field tag, the density cap, and the fenced-JSON
 * format contract. Emoji are found by Unicode properties, so letters of any script (Greek,
 * Hebrew, Devanagari, Arabic, CJK, …) are never touched: only pictographs with emoji
 * presentation (or forced to it by U+FE0F), their modifiers and joined sequences, and flags.
 */

export const VOICES = ['persona', 'neutral', 'strict'] as const;
export type Voice = (typeof VOICES)[number];

/** Whether a field is parsed by code (`machine`) or read by people (`human`). */
export type FieldTag = 'machine' | 'human';

/** Status emoji that carry information, not character: kept in every voice but strict. */
export const FUNCTIONAL_EMOJI: readonly string[] = ['✅', '⚠️', '🔴', '⏳', '🟡'];
const FUNCTIONAL_BARE = new Set(FUNCTIONAL_EMOJI.map((e) => e.replace(/\uFE0F/g, '')));

const MODIFIER = '(?:[\\u{1F3FB}-\\u{1F3FF}]|\\uFE0F|\\u20E3|[\\u{E0020}-\\u{E007F}])';
const BASE = '(?:\\p{Emoji_Presentation}|\\p{Extended_Pictographic}\\uFE0F)';
const SEQUENCE = `(?:\\p{Regional_Indicator}{2}|${BASE}${MODIFIER}*(?:\\u200D\\p{Extended_Pictographic}${MODIFIER}*)*)`;
const EMOJI = new RegExp(SEQUENCE, 'gu');
const EMOJI_TEST = new RegExp(SEQUENCE, 'u');

/** True when `emoji` (one sequence) is a functional status emoji. */
export function isFunctionalEmoji(emoji: string): boolean {
  return FUNCTIONAL_BARE.has(emoji.replace(/\uFE0F/g, ''));
}

/**
 * Removes emoji from `text`: persona emoji always, functional ones too when `functional` is
 * false. One space around a removed emoji goes with it, so words do not end up doubly spaced.
 */
export function stripEmoji(text: string, options: { functional: boolean }): string {
  if (!EMOJI_TEST.test(text)) return text;
  let out = '';
  let from = 0;
  for (const match of text.matchAll(EMOJI)) {
    if (options.functional && isFunctionalEmoji(match[0])) continue;
    let start = match.index;
    let end = start + match[0].length;
    const spaceBefore = start > from && isSpace(text[start - 1]);
    const spaceAfter = isSpace(text[end]);
    if (spaceBefore) start--;
    else if (spaceAfter && (start === 0 || text[start - 1] === '\n' || start === from)) end++;
    out += text.slice(from, start);
    from = end;
  }
  return out + text.slice(from);
}

function isSpace(char: string | undefined): boolean {
  return char === ' ' || char === '\t';
}

/** What a voice strips from a field with `tag`: nothing, persona emoji, or every emoji. */
export function emojiPolicy(voice: Voice, tag: FieldTag): 'keep' | 'persona' | 'all' {
  if (voice === 'strict') return 'all';
  if (voice === 'neutral') return 'persona';
  return tag === 'machine' ? 'persona' : 'keep';
}

/** Applies a voice to a value of field `tag`: strings anywhere inside it, keys included. */
export function applyVoice<T>(value: T, voice: Voice, tag: FieldTag): T {
  const policy = emojiPolicy(voice, tag);
  if (policy === 'keep') return value;
  const functional = policy === 'persona';
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return stripEmoji(v, { functional });
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v as Record<string, unknown>).map(([k, inner]) => [
          stripEmoji(k, { functional }),
          walk(inner),
        ]),
      );
    }
    return v;
  };
  return walk(value) as T;
}

/** Tokens in an emission, by the shared estimate. */
export function emissionTokens(text: string): number {
  return estimateTokens(text);
}

const FENCE = /```(?:json|JSON)[ \t]*\r?\n([\s\S]*?)\r?\n?```/g;

/** The last fenced ```json block of `text`, parsed; and the text without it. */
export interface FencedJson {
  /** The parsed value, when a block was found and parsed. */
  readonly value?: unknown;
  /** Why no value: no block, or the parse error. */
  readonly problem?: string;
  /** `text` with that block removed (trimmed). */
  readonly prose: string;
}

export function extractFencedJson(text: string): FencedJson {
  const blocks = [...text.matchAll(FENCE)];
  const last = blocks.at(-1);
  if (!last) return { problem: 'no fenced ```json block', prose: text.trim() };
  const prose = (text.slice(0, last.index) + text.slice(last.index + last[0].length)).trim();
  try {
    return { value: JSON.parse(last[1]!), prose };
  } catch (error) {
    return { problem: `the fenced JSON does not parse: ${(error as Error).message}`, prose };
  }
}

/** Problems with structured output against a schema's top-level `type: object` and `required`. */
export function structuredProblems(value: unknown, schema?: Readonly<Record<string, unknown>>): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return ['the fenced JSON is not an object'];
  const required = Array.isArray(schema?.required) ? (schema.required as unknown[]) : [];
  return required
    .filter((key): key is string => typeof key === 'string' && !(key in (value as Record<string, unknown>)))
    .map((key) => `missing required key "${key}"`);
}
