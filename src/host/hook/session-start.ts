import type { HookInput, HookResult } from '../types.js';
import { claimInjection, compactions, releaseInjection } from './ledger.js';
import { renderSessionPacket } from './render-packet.js';

export interface SessionStartDeps {
  home: string;
  projectDir: string;
  clock: () => Date;
}

/**
 * SessionStart: the rendered packet (≤ markdown_max_chars, resumption first), once per
 * (session, source). `clear` means the user wants a clean slate: the packet without resumption.
 */
export async function sessionStart(input: HookInput, deps: SessionStartDeps): Promise<HookResult> {
  const source = input.source ?? 'startup';
  const sessionId = input.sessionId;
  // Each compaction is its own source (`compact.N`): a double fire is still injected once.
  const key = source === 'compact' && sessionId ? `compact.${compactions(deps.home, sessionId)}` : source;
  if (sessionId && !claimInjection(deps.home, sessionId, key, deps.clock())) {
    return { kind: 'none', note: `firstlight: packet already injected for session ${sessionId} (${key})` };
  }
  try {
    const text = await renderSessionPacket({
      home: deps.home,
      projectDir: deps.projectDir,
      sessionId,
      resume: source !== 'clear',
      clock: deps.clock,
    });
    return { kind: 'context', text };
  } catch (error) {
    if (sessionId) releaseInjection(deps.home, sessionId, key);
    throw error;
  }
}
