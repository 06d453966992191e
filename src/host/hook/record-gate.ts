/**
 * The PreToolUse gate for hosts whose transcript cannot prove bootstrap (Copilot CLI, VS Code,
 * Cursor): a gated tool runs only when firstlight's own record shows bootstrap_session succeeded
 * for the session id in the hook input. The SessionStart packet asks for exactly that call,
 * `bootstrap_session(session_id: "<id>")`, and the mind server records it.
 */
import { readBootstrapRecord } from '../../mind/bootstrap-record/index.js';
import type { HookInput, HookResult, RecordGate } from '../types.js';
import { describeRule, GATE_BYPASS_ENV, type GateConfig, gatedBy } from './gate-config.js';
import { SERVER_NAME } from './own-tools.js';

export interface RecordGateDeps {
  config: GateConfig;
  env: NodeJS.ProcessEnv;
  home: string;
  gate: RecordGate;
  /** How the host names our MCP tools to the model (`firstlight-` on Copilot CLI). */
  toolPrefix: string;
}

/** Proof from the record: ok, or why not (for a deny reason). */
export function proveByRecord(home: string, sessionId: string): { ok: true } | { ok: false; reason: string } {
  return readBootstrapRecord(home, sessionId)
    ? { ok: true }
    : {
        ok: false,
        reason: `firstlight has no record of bootstrap_session succeeding for session "${sessionId}"`,
      };
}

function callFor(sessionId: string, toolPrefix: string): string {
  const spelled = toolPrefix ? ` (${toolPrefix}bootstrap_session)` : '';
  return `Call bootstrap_session(session_id: ${JSON.stringify(sessionId)}) on the ${SERVER_NAME} MCP server${spelled} first, with exactly that session_id; retry this tool once it returns mind_contract_available: true.`;
}

export function recordGate(input: HookInput, deps: RecordGateDeps): HookResult {
  const tool = input.toolName;
  if (!tool) {
    const call = input.sessionId ? ` ${callFor(input.sessionId, deps.toolPrefix)}` : '';
    return { kind: 'deny', reason: `firstlight gate: the hook input names no tool.${call}` };
  }
  const rule = gatedBy(input, tool, deps);
  if (!rule) return { kind: 'allow' };
  const gated = `${tool} is gated (${describeRule(rule)})`;
  const id = input.sessionId;
  if (!id) {
    return {
      kind: 'deny',
      reason: `firstlight gate: ${gated} and this hook input carries no session id (${deps.gate.idField}), so firstlight cannot look up a bootstrap_session for it. Call bootstrap_session() on the ${SERVER_NAME} MCP server, and if this host never sends ${deps.gate.idField}, set ${GATE_BYPASS_ENV}=1 in its environment.`,
    };
  }
  const proof = proveByRecord(deps.home, id);
  if (proof.ok) return { kind: 'allow' };
  return {
    kind: 'deny',
    reason: `firstlight gate: ${gated}: ${proof.reason}. ${callFor(id, deps.toolPrefix)}`,
  };
}
