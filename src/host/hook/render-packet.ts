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
   * clear-after-inject tail consumed (the `firstlight ui` Wake-up view).
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
 * within `packet.markdown_max_chars`, resumption first.
 */
export async function renderSessionText(mind: Mind, input: SessionTextInput): Promise<string> {
  const packet = await mind.bootstrap({
    sessionId: input.sessionId,
    sessionKey: input.sessionId ? `hook:${input.sessionId}` : 'hook',
    preview: input.preview === true || !input.resume,
  });
  if (!input.resume) packet.resumption = null;
  const maxChars = mind.settings().settings.packet.markdown_max_chars;
  // Resumption first: renderPacketMarkdown renders it in the resume part's shape, aged against
  // the packet's own clock.
  return renderPacketMarkdown(packet, { maxChars });
}
