/**
 * @module mind/observation — the light half of cognition, shared by the MCP tools and the host
 * hooks (which run on every tool call, so node built-ins, core/text, core/glob and
 * core/append-log only): the event store's line format and O_APPEND writes, expectation
 * pairing, the prediction-error measure, recording a host tool call (`source: hook`), the
 * `applies_to` caution table (its builder loads on demand), unreflected surprises, and the log of
 * when memories reached the agent (uses.ts).
 */

export type { CautionLine, CautionMatch, CautionRule, OnMatch } from './cautions.js';
export { cautionTableFile, claimCaution, loadCautionTable, matchCautions, memoryKey } from './cautions.js';
export type { DeniedCall } from './denied.js';
export { recordDeniedCall } from './denied.js';
export { argsDigest, CLIP, clip, eventId, hash, stableJson, textOf } from './digest.js';
export type { CognitionEvent } from './events.js';
export { appendEvent, eventFileFor, readRecentEvents, TAIL_BYTES } from './events.js';
export type { CallOutcome, PendingExpectation } from './pairing.js';
export { argsCover, EXPECTATION_TTL_MS, pendingExpectations, pickExpectation, sameTool } from './pairing.js';
export type { PredictionError } from './prediction-error.js';
export {
  LEXICAL_WEIGHT,
  NUMBER_SCALE,
  PREDICTION_ERROR_MEASURE,
  polarityOf,
  predictionError,
  relativeDifference,
  STOP_LINE,
} from './prediction-error.js';
export type { HookCall, RecordedCall } from './record.js';
export { recordHookCall, responseText } from './record.js';
export type { Surprise, SurpriseFile } from './surprises.js';
export {
  mergeSurprises,
  offerSurprises,
  readSurprises,
  SURPRISE_KEEP_DAYS,
  SURPRISE_MAX,
  sessionSurprises,
  surpriseLine,
  surprisesFile,
  topSurprises,
  updateSurprises,
} from './surprises.js';
export type { MemoryUse, MemoryUseVia } from './uses.js';
export { listMemoryUses, readMemoryUses, recordMemoryUse, usesDir } from './uses.js';
