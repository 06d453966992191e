/**
 * @module capture — what a finished session taught becomes memory. The Stop / PreCompact hooks
 * queue the session (capture/queue, the light face the hook imports) and a detached worker runs
 * the queue; stage 1 needs no model: the user's instructions, corrections and preferences
 * (feedback with `applies_to`), a failing command and the command that made it pass (caution),
 * the final message's decisions and open ends (the session digest and carry-forward), each
 * with its evidence quoted from the transcript. Near-duplicates update or supersede; a small
 * cap per session; `capture: off` opts out; `capture.mode: review` keeps them proposed.
 * Stage 2, opt-in: a curator through the runtime's substrates, within a token budget
 * (capture/curator). `captureStatus` is what status and the UI show.
 */

export type { Call, Conversation, Said } from './conversation.js';
export { commandOf, readConversation } from './conversation.js';
export type { CuratorReport } from './curator/index.js';
export {
  CURATOR_SYSTEM,
  curatorAnswerSchema,
  parseCuratorAnswer,
  tokensOn,
  usageFile,
} from './curator/index.js';
export type { Candidate } from './extract/candidate.js';
export type { Digest } from './extract/digest.js';
export { findDigest } from './extract/digest.js';
export { findFixes } from './extract/fixes.js';
export { findInstructions, forbiddenGlobs } from './extract/instructions.js';
export type { CaptureReport, SessionState } from './log.js';
export { logFile, readReports } from './log.js';
export type { CaptureJob } from './queue/index.js';
export { queueCapture, queuedJobs } from './queue/index.js';
export type { Proposed } from './review.js';
export { acceptProposed, listProposed, pick, rejectProposed } from './review.js';
export type { CaptureOptions, RunQueueOptions } from './run.js';
export { captureSession, runQueue, stageOne } from './run.js';
export type { EffectiveCapture } from './settings.js';
export { captureSettingsFor } from './settings.js';
export type { CaptureLine, CaptureStatus } from './status.js';
export { captureStatus } from './status.js';
export type { Skip, Written } from './write.js';
export { SAME_FACT } from './write.js';
