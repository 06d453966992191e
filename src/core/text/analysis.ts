import { stem } from './stemmer.js';

/**
 * Text analysis shared by the recall index (index and query go through the same steps), the
 * prediction-error measure and the resumption feel check: lower-case word tokens, English stop
 * words dropped, Porter stems.
 */

/** Function words that carry no topic. Negations are NOT here: "not" changes meaning. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been being but by can could did do does doing for from had has have having he her ' +
    'here hers him his how i if in into is it its itself just me more most my of on once only or our ours ' +
    'she should so some such than that the their theirs them then there these they this those through to too ' +
    'very was we were what when where which while who whom why will with would you your yours about above after ' +
    'again against all any because before below between both during each few further off out over own same ' +
    'under until up down also may might must shall us am ever'
  ).split(' '),
);

/** Word-ish runs: letters and digits (any script), with inner dots/dashes kept in numbers. */
const WORD = /[\p{L}\p{N}]+(?:[.'][\p{L}\p{N}]+)*/gu;

/** Raw tokens with their offsets, lower-cased; used for excerpts. */
export function tokensWithOffsets(text: string): { token: string; start: number; end: number }[] {
  const out: { token: string; start: number; end: number }[] = [];
  for (const match of text.matchAll(WORD)) {
    out.push({ token: match[0].toLowerCase(), start: match.index, end: match.index + match[0].length });
  }
  return out;
}

/** Lower-case tokens, apostrophes split off ("don't" -> "don", "t"; "alex's" -> "alex"). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(WORD)) {
    const raw = match[0].toLowerCase();
    if (raw.includes("'")) {
      const [head, tail] = raw.split("'", 2);
      if (head) out.push(head);
      if (tail === 't') out.push('not');
    } else out.push(raw);
  }
  return out;
}

/** Stems already computed: a 10,000-memory build stems ~1M tokens drawn from a few 10,000 words. */
const STEMS = new Map<string, string | null>();
const MAX_STEMS = 200_000;

/** One token to its index term: null for a stop word, else its stem. */
export function normalizeTerm(token: string): string | null {
  const known = STEMS.get(token);
  if (known !== undefined) return known;
  const t = token.toLowerCase();
  const term = t.length === 0 || STOP_WORDS.has(t) ? null : stem(t);
  if (STEMS.size >= MAX_STEMS) STEMS.clear();
  STEMS.set(token, term);
  return term;
}

/**
 * Whether a token may normalize to one of `terms`: the stemmer only ever changes a word's end,
 * so a term starts with its token's first letter. Lets a scan of a long text for a few terms
 * skip stemming the words that cannot be one of them (stemming is most of such a scan's cost).
 */
export function mayBeAnyOf(token: string, terms: TermInitials): boolean {
  return terms.has(token.charAt(0).toLowerCase());
}

/** The first letters of a set of terms, for mayBeAnyOf. */
export type TermInitials = ReadonlySet<string>;
export function termInitials(terms: Iterable<string>): TermInitials {
  const initials = new Set<string>();
  for (const term of terms) initials.add(term.charAt(0));
  return initials;
}

/** The content terms of a text, in order (stop words out, stemmed). */
export function contentTerms(text: string): string[] {
  const out: string[] = [];
  for (const token of tokenize(text)) {
    const term = normalizeTerm(token);
    if (term) out.push(term);
  }
  return out;
}
