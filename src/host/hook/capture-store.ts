/**
 * The resumption store as the capture hooks use it: the resume part's `captureFromTranscript`
 * (loaded lazily by capture.ts, so the gate never pays for it).
 */
export { captureFromTranscript } from '../../resume/index.js';
