import type { Progress } from './types.js';

/**
 * Reports progress once a second while a long step runs: elapsed seconds and what it waits for
 * (`starting npx -y @modelcontextprotocol/server-memory (12 s)`). A failed report (the client
 * went away) is ignored: progress is advice, never a reason to fail the call.
 */
export function startHeartbeat(progress: Progress, phase: () => string): { stop: () => void } {
  const started = Date.now();
  const timer = setInterval(() => {
    const elapsed = Math.round((Date.now() - started) / 1000);
    progress(elapsed, undefined, `${phase()} (${elapsed} s)`).catch(() => {});
  }, 1000);
  return { stop: () => clearInterval(timer) };
}
