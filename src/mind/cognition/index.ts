/**
 * @module mind/cognition — per-turn cognition: observe and reflect share one pipeline that
 * appends an event to events/YYYY-MM-DD.jsonl, recalls relevant memories, raises cautionary
 * flags (feedback/caution memories by `applies_to` glob or rank), and measures prediction error.
 */

export type { PredictionError } from '../observation/index.js';
export {
  LEXICAL_WEIGHT,
  PREDICTION_ERROR_MEASURE,
  polarityOf,
  predictionError,
  STOP_LINE,
} from '../observation/index.js';
export type { CognitionEvent, EventListing, EventQuery } from './events.js';
export { appendEvent, eventFileFor, listEvents, readRecentEvents } from './events.js';
export type { CautionaryFlag } from './flags.js';
export { CAUTIONARY_TYPES, cautionaryFlags } from './flags.js';
export type { CognitionDeps, CognitionResult, ObserveInput, ReflectInput, ReflectKind } from './pipeline.js';
export { Cognition, REFLECT_KINDS } from './pipeline.js';
export { cognitionTools } from './tools.js';
