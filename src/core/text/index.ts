/**
 * @module core/text — English text analysis shared by memory recall, cognition's
 * prediction error and resumption's feel check: word tokens, stop words, the Porter stemmer;
 * the one string order used wherever output is sorted; and SHA-256 of a string without
 * node:crypto (for the hooks, which hash on every tool call).
 */

export type { TermInitials } from './analysis.js';
export {
  contentTerms,
  mayBeAnyOf,
  normalizeTerm,
  STOP_WORDS,
  termInitials,
  tokenize,
  tokensWithOffsets,
} from './analysis.js';
export { closest, editDistance } from './closest.js';
export { sha256Hex } from './hash.js';
export { byCodeUnit } from './order.js';
export { STEMMED_ENDINGS, stem } from './stemmer.js';
