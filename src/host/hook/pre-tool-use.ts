import { readBootstrapRecord } from '../../mind/bootstrap-record/index.js';
import type { TranscriptFormat } from '../../resume/transcripts/index.js';
import type { HookInput, HookResult } from '../types.js';
import { callFirst } from './call-first.js';
import { describeRule, GATE_BYPASS_ENV, type GateConfig, gatedBy } from './gate-config.js';
import { proveBootstrap } from './transcript-scan.js';

export interface GateDeps {
  config: GateConfig;
  env: NodeJS.ProcessEnv;
  /** The host's transcript format. */
  transcript: TranscriptFormat;
  /** How the host names our MCP tools to the model (`mcp__firstlight__`, `mcp_firstlight_`). */
  toolPrefix: string;
  /** The home whose bootstrap record is accepted too (the cheaper proof, checked first). */
  home?: string;
}

/**
 * PreToolUse: a gated tool runs only when the transcript holds a successful bootstrap_session
 * result, or firstlight's own record (record-gate.ts) holds one for this session id. Fails
 * closed: no transcript, an unreadable one, or no proof all deny, with a reason that tells the
 * agent what to call.
 */
export function preToolUse(input: HookInput, deps: GateDeps): HookResult {
  const tool = input.toolName;
  const CALL_FIRST = callFirst(deps.toolPrefix);
  if (!tool) return { kind: 'deny', reason: `firstlight gate: the hook input names no tool. ${CALL_FIRST}` };
  const rule = gatedBy(input, tool, deps);
  if (!rule) return { kind: 'allow' };
  const gated = `${tool} is gated (${describeRule(rule)})`;
  if (deps.home && input.sessionId && readBootstrapRecord(deps.home, input.sessionId))
    return { kind: 'allow' };
  if (!input.transcriptPath) {
    return {
      kind: 'deny',
      reason: `firstlight gate: ${gated} and this host sent no transcript to prove bootstrap_session ran. ${CALL_FIRST} If this host never sends one, set ${GATE_BYPASS_ENV}=1 in its environment.`,
    };
  }
  const proof = proveBootstrap(
    input.transcriptPath,
    deps.config.maxTranscriptBytes,
    deps.transcript,
    input.sessionId,
  );
  if (proof.ok) return { kind: 'allow' };
  return {
    kind: 'deny',
    reason: `firstlight gate: ${gated}: ${proof.reason}. ${CALL_FIRST}`,
  };
}
