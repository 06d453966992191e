/**
 * @module core/text — English text analysis shared by memory recall, cognition's
 * prediction error and resumption's feel check: word tokens, stop words, the Porter stemmer;
 * and the one string order used wherever output is sorted.
 */

export { contentTerms, normalizeTerm, STOP_WORDS, tokenize, tokensWithOffsets } from './analysis.js';
export { byCodeUnit } from './order.js';
export { stem } from './stemmer.js';
