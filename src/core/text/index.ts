/**
 * @module core/text — English text analysis shared by memory recall, cognition's
 * prediction error and resumption's feel check: word tokens, stop words, the Porter stemmer.
 */

export { contentTerms, normalizeTerm, STOP_WORDS, tokenize, tokensWithOffsets } from './analysis.js';
export { stem } from './stemmer.js';
