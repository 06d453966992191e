import { redactFor } from '../../core/index.js';
import { createMind, renderPacketMarkdown } from '../../mind/index.js';

export interface RenderSessionPacketInput {
  home: string;
  projectDir: string;
  sessionId: string | null;
  /** False for `clear`: no resumption, and a clear-after-inject tail is not consumed. */
  resume: boolean;
  clock: () => Date;
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
    const packet = await mind.bootstrap({
      sessionId: input.sessionId,
      sessionKey: input.sessionId ? `hook:${input.sessionId}` : 'hook',
      preview: !input.resume,
    });
    if (!input.resume) packet.resumption = null;
    const maxChars = mind.settings().settings.packet.markdown_max_chars;
    // Resumption first: renderPacketMarkdown renders it in the resume part's shape, aged against
    // the packet's own clock. The text goes to the model: it passes the redactor like every write
    // (a memory or an anchor written before redaction existed, or edited by hand, may hold a key).
    return redactFor(input.home, 'session-start', renderPacketMarkdown(packet, { maxChars }), input.clock());
  } finally {
    mind.close();
  }
}
