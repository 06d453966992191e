import { join } from 'node:path';
import { argsDigest, CLIP, clip, eventId } from './digest.js';
import type { CognitionEvent } from './events.js';

/** What every observation of a host tool call starts with (`source: hook`). */
export function hookObservation(
  call: { host: string; session: string | null; tool: string; toolUseId: string | null },
  now: Date,
): CognitionEvent {
  return {
    id: eventId(now),
    ts: now.toISOString(),
    kind: 'observe',
    source: 'hook',
    host: call.host,
    ...(call.session ? { session: call.session } : {}),
    tool_name: call.tool,
    ...(call.toolUseId ? { tool_use_id: call.toolUseId } : {}),
  };
}

/** A call a PreToolUse hook refused (the gate or a memory). */
export interface DeniedCall {
  host: string;
  session: string | null;
  tool: string;
  args: unknown;
  reason: string;
  toolUseId: string | null;
}

/**
 * Records a refused call (`source: hook`, `outcome: denied`): no PostToolUse follows it, and it is
 * a tool call of the session all the same. Never paired with an expectation. One O_APPEND write.
 * The event writer (with the redactor) loads here, on a denial: the PreToolUse hook that imports
 * this on every call mostly allows, and then never loads it.
 */
export async function recordDeniedCall(home: string, call: DeniedCall, now: Date): Promise<CognitionEvent> {
  const { appendEvent } = await import('./events.js');
  const event: CognitionEvent = {
    ...hookObservation(call, now),
    ...argsDigest(call.args),
    outcome: 'denied',
    error: clip(call.reason, CLIP.error),
  };
  appendEvent(join(home, 'events'), event, now);
  return event;
}
