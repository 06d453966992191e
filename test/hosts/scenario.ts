/**
 * @module The scripted model's side of the two-session scenario, and the checks read from what
 * the host sent. Session one: call the shell (gated), call bootstrap_session, call the shell
 * again (allowed), then say last words. Session two: answer once; its first request must carry
 * those last words. The model decides each move from the tool results the host sent back, so
 * the scenario adapts to each host's tool names and survives a host's extra requests.
 */
import {
  type RecordedRequest,
  requestText,
  type SentToolResult,
  type Turn,
  toolNames,
  toolResults,
} from './model-server.js';
import type { HostRecipe } from './recipes.js';

/** The shell commands: their output (`ran-before`) differs from their text (`ran-%s`). */
export const SHELL_BEFORE = "printf 'ran-%s\\n' before";
export const SHELL_AFTER = "printf 'ran-%s\\n' after";

/** A string from firstlight's SessionStart packet that no instruction file or tool description holds. */
export const PACKET_MARKER = 'Wren — mind contract';

function shellTool(recipe: HostRecipe, request: RecordedRequest): string {
  const offered = toolNames(request);
  return recipe.shellTools.find((t) => offered.includes(t)) ?? recipe.shellTools[0]!;
}

const shellResults = (recipe: HostRecipe, results: SentToolResult[]) =>
  results.filter((r) => r.name !== null && recipe.shellTools.includes(r.name));
const bootstrapResults = (recipe: HostRecipe, results: SentToolResult[]) =>
  results.filter((r) => r.name === recipe.bootstrapName);

/** Session one's model: one move per request, chosen from the results so far. */
export function sessionOneModel(recipe: HostRecipe, lastWords: string): (request: RecordedRequest) => Turn {
  return (request) => {
    const results = toolResults(request);
    const shell = shellResults(recipe, results);
    const call = (command: string) => {
      const tool = shellTool(recipe, request);
      return { name: tool, input: recipe.shellInput(tool, command) };
    };
    if (shell.length === 0) return { text: 'Checking the shell first.', toolCalls: [call(SHELL_BEFORE)] };
    // Codex starts MCP servers beside the first turn: a call made before they are listed comes
    // back "unsupported call", so the model tries again (at most three calls).
    const boot = bootstrapResults(recipe, results);
    const notYet = boot.length > 0 && boot.length < 3 && /unsupported call/i.test(boot.at(-1)!.text);
    if (boot.length === 0 || notYet) return { toolCalls: [recipe.bootstrapCall(request)] };
    if (shell.length === 1) return { toolCalls: [call(SHELL_AFTER)] };
    return { text: lastWords };
  };
}

export interface CheckOutcome {
  pass: boolean;
  /** The evidence: what the host sent, shortened. */
  detail: string;
}

const short = (text: string, max = 300) => (text.length > max ? `${text.slice(0, max)}…` : text);

/** (a) The SessionStart packet is in the model's first request. */
export function checkPacket(first: RecordedRequest | undefined): CheckOutcome {
  if (!first) return { pass: false, detail: 'the host sent no model request' };
  const text = requestText(first);
  const at = text.indexOf(PACKET_MARKER);
  return at >= 0
    ? { pass: true, detail: `first request holds "${PACKET_MARKER}"` }
    : { pass: false, detail: `"${PACKET_MARKER}" not in the first request (${text.length} chars)` };
}

/** The results of the last request of a session: every host resends the whole history. */
function finalResults(session: RecordedRequest[]): SentToolResult[] {
  const last = session.at(-1);
  return last ? toolResults(last) : [];
}

/** (b) bootstrap_session's result, as the host sent it back, says mind_contract_available: true. */
export function checkBootstrap(recipe: HostRecipe, session: RecordedRequest[]): CheckOutcome {
  const result = bootstrapResults(recipe, finalResults(session)).at(-1);
  if (!result) return { pass: false, detail: `no ${recipe.bootstrapName} result reached the model` };
  const pass = /mind_contract_available\\*"\s*:\s*true/.test(result.text);
  return { pass, detail: short(result.text, pass ? 160 : 400) };
}

/** (c) The shell call before bootstrap was denied, naming the host's spelling of bootstrap_session. */
export function checkDenied(recipe: HostRecipe, session: RecordedRequest[]): CheckOutcome {
  const result = shellResults(recipe, finalResults(session))[0];
  if (!result) return { pass: false, detail: 'no shell result reached the model' };
  if (result.text.includes('ran-before'))
    return { pass: false, detail: `the shell ran: ${short(result.text)}` };
  if (!result.text.includes(recipe.bootstrapName)) {
    return {
      pass: false,
      detail: `denied without naming ${recipe.bootstrapName}: ${short(result.text, 400)}`,
    };
  }
  return { pass: true, detail: short(result.text, 400) };
}

/** (d) The shell call after bootstrap ran. */
export function checkAllowed(recipe: HostRecipe, session: RecordedRequest[]): CheckOutcome {
  const result = shellResults(recipe, finalResults(session))[1];
  if (!result) return { pass: false, detail: 'no second shell result reached the model' };
  return { pass: result.text.includes('ran-after'), detail: short(result.text, 400) };
}

/** (e) Session two's first request carries session one's last words. */
export function checkLastWords(first: RecordedRequest | undefined, lastWords: string): CheckOutcome {
  if (!first) return { pass: false, detail: 'session two sent no model request' };
  return requestText(first).includes(lastWords)
    ? { pass: true, detail: `session two's first request holds "${lastWords}"` }
    : { pass: false, detail: `"${lastWords}" not in session two's first request` };
}

/** (f) Session two's first request carries those last words once, not repeated. */
export function checkLastWordsOnce(first: RecordedRequest | undefined, lastWords: string): CheckOutcome {
  if (!first) return { pass: false, detail: 'session two sent no model request' };
  const times = requestText(first).split(lastWords).length - 1;
  return {
    pass: times === 1,
    detail: `the last words appear ${times} time(s) in session two's first request`,
  };
}

/**
 * (g) The shell call after bootstrap matched a feedback memory's applies_to: the caution is in
 * the request that carries that call's result (PreToolUse context, or with the result where the
 * host has no context before the call).
 */
export function checkCaution(recipe: HostRecipe, session: RecordedRequest[], caution: string): CheckOutcome {
  const carrying = session.find((r) =>
    shellResults(recipe, toolResults(r)).some((x) => x.text.includes('ran-after')),
  );
  if (!carrying) return { pass: false, detail: 'no request carries the second shell result' };
  const text = requestText(carrying);
  return text.includes(caution)
    ? { pass: true, detail: `the request after the call holds "${short(caution, 60)}"` }
    : {
        pass: false,
        detail: `"${short(caution, 60)}" not in the request carrying the result (${text.length} chars)`,
      };
}

/**
 * (h) Every tool call of session one is in the event store with `source: hook`: each result the
 * host sent the model has an event of the same tool (matched by call id where the host gives one).
 */
export function checkObserved(session: RecordedRequest[], events: Record<string, unknown>[]): CheckOutcome {
  const calls = new Map<string, SentToolResult>();
  for (const r of session) for (const x of toolResults(r)) calls.set(x.callId, x);
  if (calls.size === 0) return { pass: false, detail: 'the model made no tool call' };
  const unmatched = [...events];
  const missing: string[] = [];
  for (const call of calls.values()) {
    const byId = unmatched.findIndex((e) => e.tool_use_id === call.callId);
    const byName = unmatched.findIndex((e) => e.tool_name === call.name);
    const at = byId >= 0 ? byId : byName;
    if (at < 0) missing.push(`${call.name} (${call.callId})`);
    else unmatched.splice(at, 1);
  }
  const outcomes = events.map((e) => `${e.tool_name}:${e.outcome}`).join(', ');
  return missing.length === 0
    ? { pass: true, detail: `${calls.size} calls, ${events.length} hook events: ${outcomes}` }
    : {
        pass: false,
        detail: `no source: hook event for ${missing.join(', ')}; events: ${outcomes || 'none'}`,
      };
}
