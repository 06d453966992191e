/**
 * PostToolUse (and the failure events): every host tool call becomes an observation in the event
 * store `observe` writes (`source: hook`), paired with the agent's `observe(expected=…)` for it.
 * A prediction error above the stop line is fed back with the expectation and the outcome side
 * by side. On hosts with no context before the call, the call's cautions come here too.
 * Observation fails open: a broken event store never blocks a tool; the failure is a stderr note.
 */
import { recordHookCall } from '../../mind/observation/index.js';
import type { HookInput, HookResult, HostCaps } from '../types.js';

export interface PostToolUseDeps {
  home: string;
  clock: () => Date;
  caps: HostCaps['toolHooks'];
}

const SIDE_CLIP = 600;
const side = (text: string) => (text.length <= SIDE_CLIP ? text : `${text.slice(0, SIDE_CLIP)}…`);

export async function postToolUse(input: HookInput, deps: PostToolUseDeps): Promise<HookResult> {
  const now = deps.clock();
  const parts: string[] = [];
  const notes: string[] = [];
  if (input.toolName) {
    try {
      const recorded = recordHookCall(
        deps.home,
        {
          host: input.host,
          session: input.sessionId,
          tool: input.toolName,
          args: input.toolInput,
          response: input.toolResponse,
          error: input.toolError ?? (input.event === 'post-tool-failure' ? 'failed' : null),
          durationMs: input.durationMs,
          toolUseId: input.toolUseId,
        },
        now,
      );
      if (recorded.surprise && recorded.detail && recorded.expected !== null) {
        parts.push(
          [
            `firstlight: prediction error ${recorded.detail.value} for ${input.toolName} (above the 0.7 stop line): the outcome contradicts what you expected. Stop and re-plan before the next call; reflect(cites=["${recorded.event.id}"]) once you know why.`,
            `expected: ${side(recorded.expected)}`,
            `outcome:  ${side(recorded.outcome)}`,
          ].join('\n'),
        );
      }
    } catch (error) {
      notes.push(`firstlight hook ${input.event}: could not record the call (${(error as Error).message})`);
    }
    try {
      const { toolCautions } = await import('./tool-cautions.js');
      const cautions = await toolCautions(input, { home: deps.home, now, caps: deps.caps, when: 'post' });
      if (cautions.context) parts.push(cautions.context);
    } catch (error) {
      notes.push(`firstlight hook ${input.event}: cautions skipped (${(error as Error).message})`);
    }
  }
  if (parts.length > 0) return { kind: 'context', text: parts.join('\n\n') };
  return notes.length > 0 ? { kind: 'none', note: notes.join('; ') } : { kind: 'none' };
}
