/**
 * @module mind/cautions — what a PreToolUse hook needs on every tool call, and nothing more: the
 * precomputed `applies_to` table (read, matched, "once per session" claims; its builder loads
 * on demand), the record of a refused call and of a caution raised (uses.ts). A light face: node built-ins, core/glob and
 * core/append-log only (the rest of observation, with the prediction-error measure and its
 * stemmer, is mind/observation, which PostToolUse loads).
 */

export type { CautionLine, CautionMatch, CautionRule, OnMatch } from '../observation/cautions.js';
export {
  cautionTableFile,
  claimCaution,
  loadCautionTable,
  matchCautions,
  memoryKey,
} from '../observation/cautions.js';
export type { DeniedCall } from '../observation/denied.js';
export { recordDeniedCall } from '../observation/denied.js';
export type { MemoryUse } from '../observation/uses.js';
export { recordMemoryUse } from '../observation/uses.js';
