import type { TranscriptFormat } from '../../resume/transcripts/index.js';
import type { HookInput, HookResult } from '../types.js';

export interface CaptureDeps {
  home: string;
  clock: () => Date;
  /** How the host's transcript is read. */
  transcript: TranscriptFormat;
}

/**
 * Stop / PreCompact: capture the agent's own last words from the transcript as resumption
 * state, so the next SessionStart can put them first. Never blocks the host.
 */
export async function captureResumption(input: HookInput, deps: CaptureDeps): Promise<HookResult> {
  if (!input.transcriptPath && !input.lastAssistantMessage) {
    return { kind: 'none', note: 'firstlight: no transcript_path in the hook input; nothing to capture' };
  }
  const { captureFromTranscript } = await import('./capture-store.js');
  const outcome = await captureFromTranscript({
    home: deps.home,
    transcriptPath: input.transcriptPath,
    format: deps.transcript,
    lastAssistantMessage: input.lastAssistantMessage,
    sessionId: input.sessionId,
    source: input.event === 'pre-compact' ? 'pre-compact' : 'stop',
    now: deps.clock(),
  });
  return {
    kind: 'none',
    ...(outcome.captured ? {} : { note: `firstlight: nothing captured (${outcome.reason})` }),
  };
}
