/**
 * PostToolUse (and the failure events): every host tool call becomes an observation in the event
 * store `observe` writes (`source: hook`), paired with the agent's `observe(expected=…)` for it.
 * A prediction error above the stop line is fed back with the expectation and the outcome side
 * by side. On hosts with no context before the call, the call's cautions come here too.
 * Observation fails open: a broken event store never blocks a tool; the failure is a stderr note.
 */
import { removeBootstrapRecord } from '../../mind/bootstrap-record/index.js';
import { recordHookCall, responseText } from '../../mind/observation/index.js';
import type { HookInput, HookResult, HostCaps } from '../types.js';
import { ownProofTool, SERVER_NAME } from './own-tools.js';
import { reportsDegraded } from './proof-judge.js';

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
  try {
    revokeIfDegraded(input, deps.home);
  } catch (error) {
    notes.push(
      `firstlight hook ${input.event}: could not revoke the bootstrap record (${(error as Error).message})`,
    );
  }
  if (parts.length > 0) return { kind: 'context', text: parts.join('\n\n') };
  return notes.length > 0 ? { kind: 'none', note: notes.join('; ') } : { kind: 'none' };
}

/**
 * Our bootstrap_session (or get_system_prompt) answered that the mind is degraded: the session's
 * bootstrap record goes, so the gate closes again until a call succeeds. The record may be the
 * gate's own, kept from an earlier success in the transcript, which the mind server cannot know
 * of when the call named no session (issue 35); the server revokes the ones it wrote itself.
 */
function revokeIfDegraded(input: HookInput, home: string): void {
  if (!input.sessionId || !input.toolName || input.toolError !== null) return;
  // Where the host names the tool's server, that decides (another server's bootstrap_session is not ours).
  if (input.mcpServer !== null && input.mcpServer !== SERVER_NAME) return;
  const tool = ownProofTool({ name: input.mcpTool ?? input.toolName, server: input.mcpServer });
  if (!tool) return;
  if (reportsDegraded(tool, [responseText(input.toolResponse)])) removeBootstrapRecord(home, input.sessionId);
}
