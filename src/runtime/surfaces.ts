/**
 * Surface post-processing: emoji by voice and field tag, the density cap, and the fenced-JSON
 * format contract. Emoji are found by Unicode properties, so letters of any script (Greek,
 * Hebrew, Devanagari, Arabic, CJK, …) are never touched: only pictographs with emoji
 * presentation (or forced to it by U+FE0F), their modifiers and joined sequences, and flags.
 * Post-processing never changes identifiers or structure: keys, ids, URIs, paths and numbers
 * pass untouched, and only prose strings are stripped.
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

/**
 * Applies a voice to a value of field `tag`. In a machine field only prose strings change: keys
 * never, nor numbers, nor a string that is an identifier — one without whitespace (`f1-🦦`,
 * `src/🦦.ts`), a URI, or the value of an identifier key (`id`, `*_id`, `uri`, `url`, `path`,
 * `file`, `ref`, …) — so ids cannot collide and references still resolve. In human text, code
 * (inline `code` and fenced blocks) is left as written.
 */
export function applyVoice<T>(value: T, voice: Voice, tag: FieldTag): T {
  const policy = emojiPolicy(voice, tag);
  if (policy === 'keep') return value;
  const functional = policy === 'persona';
  if (tag === 'human' && typeof value === 'string') return stripProse(value, functional) as T;
  const walk = (v: unknown, key: string | undefined): unknown => {
    if (typeof v === 'string') return isIdentifier(v, key) ? v : stripEmoji(v, { functional });
    if (Array.isArray(v)) return v.map((item) => walk(item, key));
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.entries(v as Record<string, unknown>).map(([k, inner]) => [k, walk(inner, k)]),
      );
    }
    return v;
  };
  return walk(value, undefined) as T;
}

/** Keys whose values are references, never prose. */
const IDENTIFIER_KEY =
  /^(?:id|ids|key|keys|uri|uris|url|urls|href|path|paths|file|files|ref|refs|sha256|hash|handoff|session|finding)$|(?:_id|_ids|_uri|_url|_path|_file|_ref|Id|Ids|Uri|Url|Path)$/;
const URI = /^[a-z][a-z0-9+.-]*:\S*$/i;

/** True when a string is an identifier, not prose: it passes through post-processing untouched. */
export function isIdentifier(text: string, key?: string): boolean {
  if (key !== undefined && IDENTIFIER_KEY.test(key)) return true;
  return !/\s/.test(text.trim()) || URI.test(text.trim());
}

const CODE = /```[\s\S]*?(?:```|$)|`[^`\n]+`/g;

/** Strips emoji from human prose, leaving code spans and fenced blocks as written. */
function stripProse(text: string, functional: boolean): string {
  let out = '';
  let from = 0;
  for (const match of text.matchAll(CODE)) {
    out += stripEmoji(text.slice(from, match.index), { functional }) + match[0];
    from = match.index + match[0].length;
  }
  return out + stripEmoji(text.slice(from), { functional });
}

type TokenCounter = (text: string) => number;
let tokenizer: Promise<TokenCounter> | undefined;

/**
 * Tokens in an emission, counted with a real BPE tokenizer (cl100k_base, from gpt-tokenizer):
 * a character estimate undercounts every script but Latin (93 Chinese characters are about 90
 * tokens, not 23). The tokenizer loads on the first count, so only a surface with a density
 * cap pays for it.
 */
export async function countTokens(text: string): Promise<number> {
  tokenizer ??= import('gpt-tokenizer/encoding/cl100k_base').then((m) => m.countTokens);
  return (await tokenizer)(text);
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
