/**
 * The resumption store as the capture hooks use it. INTERIM: the resume part (issue 4) provides
 * `captureFromTranscript` with this exact input and result; until it lands on main this stub
 * reports that nothing was captured, and the merge replaces it with a re-export.
 */
export interface TranscriptCaptureInput {
  home: string;
  transcriptPath?: string | null;
  sessionId?: string | null;
  lastAssistantMessage?: string | null;
  source: string;
  now: Date;
}

export type TranscriptCaptureResult = { captured: true } | { captured: false; reason: string };

export async function captureFromTranscript(
  _input: TranscriptCaptureInput,
): Promise<TranscriptCaptureResult> {
  return {
    captured: false,
    reason: 'resumption capture is not in this build yet (the resume part provides it)',
  };
}
