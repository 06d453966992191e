/**
 * @module resume — resumption: the agent wakes up reading its own last thought, verbatim.
 * `self-state.json` (stream tail + anchors, written atomically under a lock), capture by the
 * `internalize` tool / command and from the hosts' transcripts (for the Stop and PreCompact
 * hooks), the packet's `resumption` section under the `firstlight.yaml` policy, and the
 * renderer every surface that prepends it uses (packet markdown, SessionStart).
 *
 * What each host's transcript says (Claude Code, Codex CLI, Gemini CLI) is ./transcripts/, a
 * second, light face: the hook gate imports it directly, since this one loads zod, YAML and the
 * file locks through core.
 */

export type { Fitted } from './budget.js';
export { fitToBudget, INJECTED_ANCHORS } from './budget.js';
export type {
  InternalizeInput,
  InternalizeResult,
  TranscriptCaptureInput,
  TranscriptCaptureResult,
} from './capture.js';
export {
  captureFromTranscript,
  DEFAULT_TRIGGER,
  internalize,
  MAX_ANCHOR_CHARS,
  MAX_TAIL_INPUT_CHARS,
} from './capture.js';
export type { BadFeelSign, FeelAssessment, FeelSign, GoodFeelSign, WokeWith } from './feel.js';
export { assessResumptionFeel } from './feel.js';
export type { OpenClawImport } from './openclaw.js';
export { importOpenClawSelfState } from './openclaw.js';
export type { RenderResumptionOptions, ResumptionLike } from './render.js';
export { CONTINUE_LINE, NO_REPEAT_LINE, RESUMPTION_HEADING, renderResumption } from './render.js';
export type {
  LoadResumptionInput,
  ResumptionPolicy,
  ResumptionSection,
  ResumptionView,
} from './section.js';
export { loadResumption } from './section.js';
export type {
  Anchor,
  CaptureInput,
  CaptureRecord,
  ReadResult,
  SelfState,
  TranscriptSource,
} from './self-state.js';
export {
  captureSelfState,
  cutFront,
  MAX_STORED_ANCHORS,
  MAX_STORED_SESSIONS,
  MAX_STORED_TAIL_CHARS,
  readSelfState,
} from './self-state.js';
export type { InternalizeToolDeps } from './tool.js';
export { internalizeTool } from './tool.js';
export type { ExtractOptions, TranscriptTail } from './transcript.js';
export { extractTranscriptTail } from './transcript.js';
export type { TranscriptFormat } from './transcripts/index.js';
