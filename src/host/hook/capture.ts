import { closeSync, fstatSync, readSync } from 'node:fs';
import { openTranscript, type TranscriptFormat } from '../../resume/transcripts/index.js';
import type { HookInput, HookResult } from '../types.js';

export interface CaptureDeps {
  home: string;
  clock: () => Date;
  /** How the host's transcript is read. */
  transcript: TranscriptFormat;
  /** How long to wait for the hook's transcript mark (tests shrink it). */
  flushWaitMs?: number;
}

/** The longest a capture waits for the host to write its transcript up to this hook. */
const FLUSH_WAIT_MS = 3000;
/** How much of the transcript's end is searched for the mark. */
const MARK_TAIL_BYTES = 256 * 1024;

/** True when the last bytes of the transcript hold `mark`; false when unreadable or not yet. */
function tailHolds(path: string, mark: string): boolean {
  let fd: number | undefined;
  try {
    fd = openTranscript(path);
    const size = fstatSync(fd).size;
    const length = Math.min(size, MARK_TAIL_BYTES);
    const buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, size - length);
    return buf.includes(mark);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Waits until the transcript holds the hook's mark (everything the host wrote before starting
 * the hook is then on disk), polling, at most `maxMs`; then the capture reads what is there.
 */
async function waitForMark(path: string, mark: string, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (!tailHolds(path, mark) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Stop / PreCompact: capture the agent's own last words from the transcript as resumption
 * state, so the next SessionStart can put them first. Never blocks the host.
 */
export async function captureResumption(input: HookInput, deps: CaptureDeps): Promise<HookResult> {
  if (!input.transcriptPath && !input.lastAssistantMessage) {
    return { kind: 'none', note: 'firstlight: no transcript_path in the hook input; nothing to capture' };
  }
  if (input.transcriptPath && input.transcriptMark)
    await waitForMark(input.transcriptPath, input.transcriptMark, deps.flushWaitMs ?? FLUSH_WAIT_MS);
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
