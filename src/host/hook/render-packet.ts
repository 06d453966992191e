import { redactFor, redactorFor } from '../../core/index.js';
import { createMind, type Mind, renderPacketMarkdown } from '../../mind/index.js';

export interface RenderSessionPacketInput {
  home: string;
  projectDir: string;
  sessionId: string | null;
  /** False for `clear`: no resumption, and a clear-after-inject tail is not consumed. */
  resume: boolean;
  clock: () => Date;
}

/** What {@link renderSessionText} needs besides a mind. */
export interface SessionTextInput {
  sessionId: string | null;
  /** False for `clear`: no resumption, and a clear-after-inject tail is not consumed. */
  resume: boolean;
  /**
   * Render exactly what the hook would inject, recording nothing: no session start, no
   * clear-after-inject tail consumed, no redaction counted (the `firstlight ui` Wake-up view).
   */
  preview?: boolean;
}

/** The packet as the SessionStart hook injects it (loaded lazily: it pulls in the whole mind). */
export async function renderSessionPacket(input: RenderSessionPacketInput): Promise<string> {
  const mind = createMind({
    home: input.home,
    projectDir: input.projectDir,
    clock: input.clock,
    quickMemoryOverview: true,
    sweepLeftovers: false,
  });
  try {
    return await renderSessionText(mind, { sessionId: input.sessionId, resume: input.resume });
  } finally {
    mind.close();
  }
}

/**
 * The SessionStart text from a mind built by `createMind` (the hook builds one per call; a
 * long-running reader such as `firstlight ui` passes its own): the packet rendered as markdown
 * within `packet.markdown_max_chars`, resumption first, through the home's redactor.
 */
export async function renderSessionText(mind: Mind, input: SessionTextInput): Promise<string> {
  const preview = input.preview === true;
  const packet = await mind.bootstrap({
    sessionId: input.sessionId,
    sessionKey: input.sessionId ? `hook:${input.sessionId}` : 'hook',
    preview: preview || !input.resume,
  });
  if (!input.resume) packet.resumption = null;
  const maxChars = mind.settings().settings.packet.markdown_max_chars;
  // Resumption first: renderPacketMarkdown renders it in the resume part's shape, aged against
  // the packet's own clock. The text goes to the model: it passes the redactor like every write
  // (a memory or an anchor written before redaction existed, or edited by hand, may hold a key).
  const text = renderPacketMarkdown(packet, { maxChars });
  // A preview redacts the same, but counts nothing: no text was written anywhere.
  if (preview) return redactorFor(mind.home).redact(text, {});
  return redactFor(mind.home, 'session-start', text, mind.clock());
}
