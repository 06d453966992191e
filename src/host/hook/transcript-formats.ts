/**
 * Where each host's transcript records a `bootstrap_session` call and its result. The scan
 * (transcript-scan.ts) finds the lines; a reader says which calls a parsed line makes and
 * whether it holds a call's finished result.
 *
 * - Claude Code (`~/.claude/projects/…/<session>.jsonl`): an assistant line's `tool_use` block
 *   `{id, name}`; a `type:"user"` line's `tool_result` block `{tool_use_id, content, is_error}`,
 *   content a string or `{type:"text"}` blocks.
 * - Codex CLI (rollout `~/.codex/sessions/…/rollout-*.jsonl`): `{"type":"response_item",
 *   "payload":{"type":"function_call","name","arguments","call_id"}}` (name `mcp__server__tool`,
 *   older `server__tool`, or newer a bare name with `"namespace":"mcp__server"`) and
 *   `{"type":"function_call_output","call_id","output"}`, output the structuredContent JSON, the
 *   content blocks as a JSON string, `content_items` (`input_text`), or `err: …`. MCP call events
 *   (`mcp_tool_call_end`) are not persisted to rollouts (codex-rs rollout/policy.rs).
 * - Gemini CLI (`~/.gemini/tmp/<project>/chats/session-*.jsonl`): message records, re-appended
 *   whole on every update, `{"type":"gemini","toolCalls":[{id, name, args, status, result}]}`
 *   with result `[{functionResponse:{id, name, response:{output} | {error}}}]` and `displayName`
 *   `<tool> (<server> MCP Server)` (the server is recorded nowhere else); `$set` records
 *   may carry all messages; older sessions are one pretty-printed JSON document `{…, messages}`.
 */
import { ownTool, SERVER_NAME } from './own-tools.js';

export type BootstrapProof = { ok: true; detail: string } | { ok: false; reason: string };
export type TranscriptFormat = 'claude' | 'codex' | 'gemini';
type Entry = Record<string, unknown>;

export interface TranscriptReader {
  /** Ids of firstlight `bootstrap_session` calls this parsed line (or record) makes. */
  calls(entry: Entry): string[];
  /** The verdict on call `id` when this entry holds its finished result. */
  result(entry: Entry, id: string): BootstrapProof | undefined;
  /** For a file that is one JSON document rather than lines: its records, in order. */
  document?(value: unknown): Entry[] | null;
}

const isEntry = (v: unknown): v is Entry => typeof v === 'object' && v !== null && !Array.isArray(v);
const entries = (v: unknown): Entry[] => (Array.isArray(v) ? v.filter(isEntry) : []);
const failed = (why: string): BootstrapProof => ({ ok: false, reason: `bootstrap_session ${why}` });

/** Text of content blocks: MCP `{type:"text"}`, Codex `input_text`/`output_text`, Gemini `{text}`. */
function blockTexts(blocks: unknown): string[] {
  return entries(blocks)
    .filter(
      (b) =>
        typeof b.text === 'string' &&
        (b.type === undefined || /^(input_|output_)?text$/.test(String(b.type))),
    )
    .map((b) => b.text as string);
}

/**
 * Judges the result's text: some text (or the texts joined) parses to a JSON packet with
 * `mind_contract_available: true`. A text that is itself a JSON array of content blocks (how
 * Codex stores MCP content) is opened once.
 */
export function judgeTexts(texts: string[]): BootstrapProof {
  if (texts.length === 0) return failed('result has no text content');
  const candidates = texts.length > 1 ? [...texts, texts.join('')] : [...texts];
  const given = candidates.length;
  let sawFalse = false;
  for (let i = 0; i < candidates.length; i++) {
    let value: unknown;
    try {
      value = JSON.parse(candidates[i]!);
    } catch {
      continue;
    }
    if (Array.isArray(value) && i < given) candidates.push(...blockTexts(value));
    const flag = isEntry(value) ? value.mind_contract_available : undefined;
    if (flag === true)
      return { ok: true, detail: 'bootstrap_session succeeded with mind_contract_available: true' };
    if (flag === false) sawFalse = true;
  }
  return sawFalse
    ? failed('reported mind_contract_available: false (the mind is degraded)')
    : failed('result is not a JSON packet with mind_contract_available');
}

const isBootstrap = (name: unknown): boolean =>
  typeof name === 'string' && ownTool(name) === 'bootstrap_session';

function claudeBlocks(entry: Entry): Entry[] {
  const message = entry.message as { content?: unknown } | undefined;
  return entries(message?.content ?? entry.content);
}

const claude: TranscriptReader = {
  calls: (entry) =>
    claudeBlocks(entry)
      .filter((b) => b.type === 'tool_use' && isBootstrap(b.name) && typeof b.id === 'string')
      .map((b) => b.id as string),
  result(entry, id) {
    const block = claudeBlocks(entry).find((b) => b.type === 'tool_result' && b.tool_use_id === id);
    if (!block) return undefined;
    if (block.is_error === true) return failed('returned an error');
    const content = block.content;
    return judgeTexts(typeof content === 'string' ? [content] : blockTexts(content));
  },
};

/** Rollout lines wrap items as `{type:"response_item", payload}`; the oldest rollouts did not. */
const codexItem = (entry: Entry): Entry =>
  entry.type === 'response_item' && isEntry(entry.payload) ? entry.payload : entry;

const codex: TranscriptReader = {
  calls(entry) {
    const item = codexItem(entry);
    if (item.type !== 'function_call' || typeof item.call_id !== 'string') return [];
    const namespaced =
      item.name === 'bootstrap_session' &&
      (item.namespace === `mcp__${SERVER_NAME}` || item.namespace === SERVER_NAME);
    return namespaced || isBootstrap(item.name) ? [item.call_id] : [];
  },
  result(entry, id) {
    const item = codexItem(entry);
    if (item.type !== 'function_call_output' || item.call_id !== id) return undefined;
    const output = item.output;
    if (typeof output === 'string')
      return output.startsWith('err: ') ? failed('returned an error') : judgeTexts([output]);
    if (isEntry(output)) {
      if (output.success === false) return failed('returned an error');
      return judgeTexts(typeof output.content === 'string' ? [output.content] : blockTexts(output.content));
    }
    return judgeTexts(blockTexts(output));
  },
};

/** Message records in a Gemini line: the record itself, or every message a `$set` rewrites. */
function geminiToolCalls(entry: Entry): Entry[] {
  const set =
    isEntry(entry.$set) && Array.isArray(entry.$set.messages) ? entries(entry.$set.messages) : [entry];
  return set.filter((m) => m.type === 'gemini').flatMap((m) => entries(m.toolCalls));
}

/**
 * Gemini CLI registers an MCP tool under its bare name when no other tool has it, and records
 * each call with the tool's `displayName`, `<tool> (<server> MCP Server)`: a bare
 * `bootstrap_session` is ours only under our server's display name (any server may have one).
 */
const isGeminiBootstrap = (call: Entry) =>
  isBootstrap(call.name) ||
  (call.name === 'bootstrap_session' && call.displayName === `bootstrap_session (${SERVER_NAME} MCP Server)`);

function judgeGeminiCall(call: Entry): BootstrapProof | undefined {
  if (call.status === 'error') return failed('returned an error');
  if (call.status === 'cancelled') return failed('was cancelled');
  if (call.status !== 'success') return undefined; // scheduled, executing, awaiting approval
  const texts: string[] = [];
  for (const part of Array.isArray(call.result) ? entries(call.result) : entries([call.result])) {
    const response = isEntry(part.functionResponse) ? part.functionResponse.response : undefined;
    if (isEntry(response)) {
      if (response.error !== undefined) return failed('returned an error');
      if (typeof response.output === 'string') texts.push(response.output);
      texts.push(...blockTexts(response.content));
    } else if (typeof part.text === 'string') texts.push(part.text);
  }
  return judgeTexts(texts);
}

const gemini: TranscriptReader = {
  calls: (entry) =>
    geminiToolCalls(entry)
      .filter((c) => isGeminiBootstrap(c) && typeof c.id === 'string')
      .map((c) => c.id as string),
  result(entry, id) {
    const call = geminiToolCalls(entry).find((c) => c.id === id);
    return call ? judgeGeminiCall(call) : undefined;
  },
  document: (value) => (isEntry(value) && Array.isArray(value.messages) ? entries(value.messages) : null),
};

export const TRANSCRIPT_READERS: Readonly<Record<TranscriptFormat, TranscriptReader>> = {
  claude,
  codex,
  gemini,
};
