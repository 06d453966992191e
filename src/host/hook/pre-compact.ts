import type { HookInput, HookResult } from '../types.js';
import type { CaptureDeps } from './capture.js';

/**
 * PreCompact: count the compaction about to happen (so the SessionStart `compact` that follows
 * is a new (session, source) pair and gets the packet again), then capture resumption state as
 * Stop does. Counting never stands in the capture's way.
 */
export async function preCompact(input: HookInput, deps: CaptureDeps): Promise<HookResult> {
  if (input.sessionId) {
    const { countCompaction } = await import('./ledger.js');
    try {
      await countCompaction(deps.home, input.sessionId);
    } catch {
      // A lost count only means the next compact may not re-inject; the capture still runs.
    }
  }
  const { captureResumption } = await import('./capture.js');
  return captureResumption(input, deps);
}
