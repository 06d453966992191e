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

/** The gate's answer; an allow the transcript proved says so (the handler keeps it as a record). */
export type GateVerdict = HookResult | { kind: 'allow'; provedByTranscript: true; note?: string };

const PENDING_RESULT_POLL_MS = 20;
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * PreToolUse: a gated tool runs only when the transcript holds a successful bootstrap_session
 * result, or firstlight's own record (record-gate.ts) holds one for this session id. Fails
 * closed: no transcript, an unreadable one, or no proof all deny, with a reason that tells the
 * agent what to call.
 */
export function preToolUse(input: HookInput, deps: GateDeps): GateVerdict {
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
  const prove = () =>
    proveBootstrap(input.transcriptPath!, deps.config.maxTranscriptBytes, deps.transcript, input.sessionId);
  let proof = prove();
  // The call is in the transcript but its result is not: the host has it (the model moved on)
  // and has not flushed it yet. Look again until it lands, for a bounded time.
  const deadline = Date.now() + deps.config.pendingResultWaitMs;
  while (!proof.ok && proof.pending && Date.now() < deadline) {
    Atomics.wait(PAUSE, 0, 0, PENDING_RESULT_POLL_MS);
    if (deps.home && input.sessionId && readBootstrapRecord(deps.home, input.sessionId))
      return { kind: 'allow' };
    proof = prove();
  }
  if (proof.ok) return { kind: 'allow', provedByTranscript: true };
  return {
    kind: 'deny',
    reason: `firstlight gate: ${gated}: ${proof.reason}. ${CALL_FIRST}`,
  };
}
