import { mayBeAnyOf, normalizeTerm, termInitials, tokensWithOffsets } from '../../core/index.js';

/** Excerpts stay short: they go into tool results every turn. */
export const EXCERPT_CHARS = 240;
const WINDOW_TOKENS = 28;

/**
 * A short excerpt of `text` around its best match: the window of ~28 words holding the most
 * distinct matched terms (earliest on ties), widened to whole words, with "…" where cut.
 * Falls back to the opening of the text when nothing matches.
 */
export function excerptAround(text: string, terms: ReadonlySet<string>, max = EXCERPT_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const tokens = tokensWithOffsets(flat);
  const initials = termInitials(terms);
  const hits = tokens.map((t) => {
    if (!mayBeAnyOf(t.token, initials)) return null;
    const term = normalizeTerm(t.token);
    return term !== null && terms.has(term) ? term : null;
  });
  let bestStart = -1;
  let bestCount = 0;
  for (let i = 0; i < tokens.length; i++) {
    if (hits[i] === null) continue;
    const seen = new Set<string>();
    for (let j = i; j < Math.min(tokens.length, i + WINDOW_TOKENS); j++) {
      const h = hits[j];
      if (h) seen.add(h);
    }
    if (seen.size > bestCount) {
      bestCount = seen.size;
      bestStart = i;
    }
  }
  if (bestStart < 0) return `${flat.slice(0, max - 1).replace(/\s+\S*$/, '')}…`;
  // Start a few words before the first hit so the match has context.
  const from = tokens[Math.max(0, bestStart - 4)]!.start;
  let to = Math.min(flat.length, from + max - 2);
  if (to < flat.length) {
    const cut = flat.lastIndexOf(' ', to);
    if (cut > from) to = cut;
  }
  return `${from > 0 ? '…' : ''}${flat.slice(from, to).trim()}${to < flat.length ? '…' : ''}`;
}
