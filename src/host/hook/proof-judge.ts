/**
 * The judge of a proof tool's result: does this `bootstrap_session` (or legacy
 * `get_system_prompt`) result show the mind bootstrapped? Read from a transcript by the gate
 * (transcript-scan.ts), and from the host's PostToolUse payload, where a degraded result
 * revokes the session's record (post-tool-use.ts).
 */
import { contentTexts, isEntry, type ToolOutcome } from '../../resume/transcripts/index.js';
import { CONTRACT_ERROR_PREFIX, type ProofTool } from './own-tools.js';

/**
 * `pending`: the newest call has no result in the transcript yet. A host may still be writing
 * it (Claude Code queues transcript lines and flushes them on a timer), so the gate waits a
 * moment for it before denying.
 */
export type BootstrapProof = { ok: true; detail: string } | { ok: false; reason: string; pending?: true };

const failed = (tool: ProofTool, why: string): BootstrapProof => ({ ok: false, reason: `${tool} ${why}` });

/** Wrappers hosts put around a tool's text before recording it (the body is group 1). */
const HOST_WRAPPERS = [
  // Codex CLI: `Wall time: 0.0147 seconds\nOutput:\n{…}`.
  /^Wall time:[^\n]*\n(?:[A-Z][a-z ]*:[^\n]*\n)*?Output:\n([\s\S]*)$/,
  // Gemini CLI: `<untrusted_context>\n{…}\n</untrusted_context>`.
  /^<untrusted_context>\s*([\s\S]*?)\s*<\/untrusted_context>$/,
];

/** A tool's text without the host's wrapper (as many layers as there are). */
export function stripHostWrapper(text: string): string {
  let body = text.trim();
  for (let changed = true; changed; ) {
    changed = false;
    for (const wrapper of HOST_WRAPPERS) {
      const match = wrapper.exec(body);
      if (match) {
        body = match[1]!.trim();
        changed = true;
      }
    }
  }
  return body;
}

/**
 * The JSON value in a tool's text: the text without its host wrapper, or, for a wrapper not
 * known yet, from its first line that opens a JSON object to its last closing brace. The
 * result is our own call's (the caller matched its id), so the JSON is what our server sent.
 */
function parseToolJson(text: string): unknown {
  const body = stripHostWrapper(text);
  try {
    return JSON.parse(body);
  } catch {
    const open = /(^|\n)[ \t]*\{/.exec(body);
    const close = body.lastIndexOf('}');
    if (!open || close < open.index) throw new SyntaxError('no JSON in the text');
    return JSON.parse(body.slice(open.index + open[1]!.length, close + 1));
  }
}

/** The mind-contract flag of the first text that parses to a packet, opening content-block arrays once. */
function packetFlag(texts: string[]): boolean | undefined {
  const candidates = texts.length > 1 ? [...texts, texts.join('')] : [...texts];
  const given = candidates.length;
  let flag: boolean | undefined;
  for (let i = 0; i < candidates.length; i++) {
    let value: unknown;
    try {
      value = parseToolJson(candidates[i]!);
    } catch {
      continue;
    }
    if (Array.isArray(value) && i < given) candidates.push(...contentTexts(value));
    const seen = isEntry(value) ? value.mind_contract_available : undefined;
    if (seen === true) return true;
    if (seen === false) flag = false;
  }
  return flag;
}

/**
 * Judges the result's text. `bootstrap_session`: some text (or the texts joined), unwrapped,
 * parses to a JSON packet with `mind_contract_available: true`. `get_system_prompt` (legacy):
 * its text is the contract itself, so any non-empty text that is not the contract's ERROR
 * text proves it; where the host kept the structured result, its flag decides.
 */
export function judgeTexts(tool: ProofTool, texts: string[]): BootstrapProof {
  if (texts.length === 0) return failed(tool, 'result has no text content');
  const flag = packetFlag(texts);
  if (flag === true) return { ok: true, detail: `${tool} succeeded with mind_contract_available: true` };
  if (flag === false) return failed(tool, 'reported mind_contract_available: false (the mind is degraded)');
  if (tool === 'get_system_prompt') {
    const body = stripHostWrapper(texts.join(''));
    if (body.startsWith(CONTRACT_ERROR_PREFIX))
      return failed(tool, 'returned the mind contract ERROR (the mind is degraded)');
    if (body !== '') return { ok: true, detail: 'get_system_prompt returned the mind contract' };
  }
  return failed(tool, 'result is not a JSON packet with mind_contract_available');
}

export function judge(tool: ProofTool, outcome: ToolOutcome): BootstrapProof {
  if (outcome.status === 'error') return failed(tool, 'returned an error');
  if (outcome.status === 'cancelled') return failed(tool, 'was cancelled');
  return judgeTexts(tool, outcome.texts);
}

/**
 * True when a proof tool's response, as a PostToolUse hook carries it (its text: a string, MCP
 * content blocks, or the JSON of whatever the host sent), says the mind is degraded:
 * `mind_contract_available: false`, or get_system_prompt's ERROR text. Success, an error or an
 * unreadable response is false: only a degraded answer takes a session's record back.
 */
export function reportsDegraded(tool: ProofTool, texts: string[]): boolean {
  if (texts.length === 0) return false;
  const flag = packetFlag(texts);
  if (flag !== undefined) return !flag;
  return tool === 'get_system_prompt' && stripHostWrapper(texts.join('')).startsWith(CONTRACT_ERROR_PREFIX);
}
