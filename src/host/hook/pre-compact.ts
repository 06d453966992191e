import type { HookInput, HookResult } from '../types.js';
import { type CaptureDeps, captureResumption } from './capture.js';
import { countCompaction } from './ledger.js';

/**
 * PreCompact: count the compaction about to happen (so the SessionStart `compact` that follows
 * is a new (session, source) pair and gets the packet again), then capture resumption state as
 * Stop does. Counting never stands in the capture's way.
 */
export async function preCompact(input: HookInput, deps: CaptureDeps): Promise<HookResult> {
  if (input.sessionId) {
    try {
      await countCompaction(deps.home, input.sessionId);
    } catch {
      // A lost count only means the next compact may not re-inject; the capture still runs.
    }
  }
  return captureResumption(input, deps);
}
