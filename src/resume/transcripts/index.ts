/**
 * @module resume/transcripts — what each host's transcript says, in one place: the tool calls
 * and their outcomes (the host's PreToolUse gate proves `bootstrap_session` ran from them) and
 * the conversation's turns, the assistant's words and the user's prompt times (the Stop and
 * PreCompact capture reads the agent's last words and whether the user spoke since).
 *
 * - Claude Code (`~/.claude/projects/…/<session>.jsonl`): `{type:"user"|"assistant", sessionId,
 *   timestamp, message:{id, content}}`; an assistant line holds `text`, `thinking` (often "") and
 *   `tool_use {id, name}` blocks, a `type:"user"` line either the prompt or `tool_result
 *   {tool_use_id, content, is_error}` blocks (content a string or `{type:"text"}` blocks).
 *   Subagent lines are `isSidechain`; one message may stream over several lines.
 * - Codex CLI (rollout `~/.codex/sessions/…/rollout-*.jsonl`): `{timestamp, type, payload}`
 *   lines (the oldest rollouts wrote the payload bare): `session_meta {id}`; `response_item`
 *   `message {role, content:[{type:"input_text"|"output_text", text}]}` (user-role messages also
 *   carry context blocks such as `<environment_context>`), `function_call {name, call_id,
 *   namespace?}` (name `mcp__server__tool`, older `server__tool`, newer a bare name with
 *   `namespace:"mcp__server"`), `function_call_output {call_id, output}` (output the
 *   structuredContent JSON, the content blocks as a JSON string, `content_items`, or `err: …`);
 *   `event_msg {type:"user_message"}` for each prompt. Since 0.169 a `function_call_output` of an
 *   MCP call reads `Wall time: 0.0042 seconds\nOutput:\n{…}` (a string when the tool returned
 *   structuredContent, else `input_text` blocks after that header), and an `event_msg
 *   {type:"item_completed", item:{type:"McpToolCall", id, server, tool, status, result}}`
 *   records the structured result. Reasoning is stored as summaries or encrypted,
 *   never verbatim, so only `output_text` counts as the agent's words.
 * - Gemini CLI (`~/.gemini/tmp/<project>/chats/session-*.jsonl`): a metadata line `{sessionId,
 *   projectHash}`, then message records `{id, timestamp, type:"user"|"gemini"|"info"|…,
 *   content}` re-appended whole on every update; a `gemini` record's `toolCalls[]` entries
 *   `{id, name, status, displayName:"<tool> (<server> MCP Server)", result:[{functionResponse:
 *   {response:{output}|{error}}}]}` (the display name is the only place the server is
 *   recorded); `$set` records may carry all messages, `$rewindTo` undoes messages from an id
 *   on. Older sessions are one pretty-printed JSON document `{sessionId, …, messages}`. Its
 *   `thoughts` are summaries, not the agent's words.
 * - Copilot CLI (`~/.copilot/session-state/<session>/events.jsonl`, the `transcriptPath` of its
 *   agentStop hook): `{type, data, id, timestamp}` events: `session.start {sessionId}`,
 *   `user.message {content}` for each prompt, `assistant.message {messageId, content,
 *   toolRequests:[{toolCallId, name, mcpServerName?}]}` (content "" when it only calls tools),
 *   `tool.execution_complete {toolCallId, success, result:{content}}`, and hook and usage
 *   events that say nothing of the conversation (measured with 1.0.102).
 *
 * Light by design: the gate runs on every tool call and imports this face directly (resume's
 * index.ts pulls in zod, YAML and the file locks through core).
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

export type TranscriptFormat = 'claude' | 'codex' | 'gemini' | 'copilot';
/** One parsed line (or a record of a JSON document). */
export type TranscriptEntry = Record<string, unknown>;
type Entry = TranscriptEntry;

/** A tool call as the transcript records it. */
export interface ToolCall {
  id: string;
  name: string;
  /** The MCP server, where the host records it apart from the name (Codex, Gemini CLI). */
  server: string | null;
  /** The call's arguments as the host recorded them (capture reads the commands run). */
  input?: unknown;
}

/** A finished tool call: an error, cancelled, or done with its result's texts. */
export type ToolOutcome = { status: 'error' } | { status: 'cancelled' } | { status: 'done'; texts: string[] };

/** What one record says about the conversation. */
export interface TurnRecord {
  /** Versions of one message share a key; only the newest counts (Gemini re-appends records). */
  key?: string;
  sessionId?: string;
  /** The record's timestamp (ISO 8601). */
  at?: string;
  /** A user prompt: the start of a turn. */
  prompt?: true;
  /** The prompt's words, when the record holds them (capture reads what the user said). */
  promptText?: string;
  /** The assistant's words in this record, oldest first. */
  words?: TurnWords[];
  /** Gemini's `$rewindTo`: records back to (and including) the one with this key were undone. */
  rewindTo?: string;
}

export interface TurnWords {
  text: string;
  /** Thinking rather than text (Claude Code, which often writes it as ""). */
  thinking?: true;
  /** A block repeated under one key is counted once (Claude Code streams a message line by line). */
  key?: string;
}

export interface TranscriptReader {
  /** The tool calls this record makes. */
  calls(entry: Entry): ToolCall[];
  /** The outcome of call `id` when this record holds its finished result. */
  outcome(entry: Entry, id: string): ToolOutcome | undefined;
  /**
   * The record is the host's structured account of a tool call (Codex's `McpToolCall` item):
   * its outcome outranks the one read from the text the model was shown.
   */
  isStructuredResult?(entry: Entry): boolean;
  /** What this record says about the conversation, oldest first (a record may hold many). */
  turn(entry: Entry): TurnRecord[];
  /**
   * A long line can be passed over unparsed when its first bytes say it holds a tool's output
   * and nothing else: an unescaped `"type":"…"` there can only be a real key.
   */
  isToolOutputHead(head: string): boolean;
  /** For a file that is one JSON document rather than lines: its records, in order. */
  document?(value: unknown): Entry[] | null;
  /**
   * The session a record names for itself alone (Claude Code's `sessionId` on every line, the
   * `thread_id` of a Codex event), or undefined.
   */
  sessionOf(entry: Entry): string | undefined;
  /**
   * For a host that names a session once, in the record that opens it (Codex's `session_meta`,
   * Gemini CLI's metadata line or document): that session for such a record, else undefined; the
   * records after it are that session's. `needle`: bytes every such record holds, so a scan can
   * find them without parsing every line.
   */
  opensSession?: { needle: string; of(entry: Entry): string | undefined };
}

export const isEntry = (v: unknown): v is Entry => typeof v === 'object' && v !== null && !Array.isArray(v);
const entries = (v: unknown): Entry[] => (Array.isArray(v) ? v.filter(isEntry) : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Text of content blocks: MCP `{type:"text"}`, Codex `input_text`/`output_text`, Gemini `{text}`. */
export function contentTexts(blocks: unknown): string[] {
  return entries(blocks)
    .filter(
      (b) =>
        typeof b.text === 'string' &&
        (b.type === undefined || /^(input_|output_)?text$/.test(String(b.type))),
    )
    .map((b) => b.text as string);
}

/**
 * Opens a transcript for reading, only when it is a regular file: the path comes from the
 * host's hook input, and a FIFO there would block the hook forever (O_NONBLOCK makes the open
 * itself return; the check refuses it). A directory, socket or device is refused the same way,
 * with an error whose `code` is `ENOTREG`.
 */
export function openTranscript(path: string): number {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  const stats = fstatSync(fd);
  if (stats.isFile()) return fd;
  closeSync(fd);
  const kind = stats.isFIFO() ? 'a FIFO' : stats.isDirectory() ? 'a directory' : 'not a regular file';
  throw Object.assign(new Error(`${path} is ${kind}`), { code: 'ENOTREG' });
}

/** A pretty-printed JSON document (Gemini CLI's older session files) opens with a lone `{` line. */
export function isJsonDocument(fd: number, size: number): boolean {
  const head = Buffer.alloc(Math.min(size, 64));
  readSync(fd, head, 0, head.length, 0);
  return /^\s*\{\s*\n/.test(head.toString('utf8'));
}

/** What a whole-file document holds, oldest record first, or why it could not be read. */
export type DocumentRecords =
  | { records: TranscriptEntry[] }
  | { problem: 'too_large' | 'not_json' | 'no_messages' };

/** Reads and parses a whole-file JSON transcript (it has no lines to skip to), up to `maxBytes`. */
export function readDocumentRecords(
  fd: number,
  size: number,
  maxBytes: number,
  reader: TranscriptReader,
): DocumentRecords {
  if (!reader.document) return { problem: 'no_messages' };
  if (size > maxBytes) return { problem: 'too_large' };
  const buf = Buffer.allocUnsafe(size);
  readSync(fd, buf, 0, size, 0);
  let records: TranscriptEntry[] | null;
  try {
    records = reader.document(JSON.parse(buf.toString('utf8')));
  } catch {
    return { problem: 'not_json' };
  }
  return records ? { records } : { problem: 'no_messages' };
}

// Claude Code

function claudeBlocks(entry: Entry): Entry[] {
  const message = entry.message as { content?: unknown } | undefined;
  return entries(message?.content ?? entry.content);
}

const CLAUDE_USER = /"type"\s*:\s*"user"/;
const CLAUDE_TOOL_RESULT = /"type"\s*:\s*"tool_result"/;

/**
 * Claude Code lines that may carry proof: the main conversation's (a subagent's `isSidechain`
 * lines orient the subagent, not the session), a call only in an `assistant` line (the model's
 * own turn) and a result only in a `user` line (where the host records results). A
 * `tool_result` in an assistant line, or a `tool_use` in a user line, is not the host's record.
 */
const claudeLine = (entry: Entry, type: 'assistant' | 'user'): boolean =>
  entry.type === type && entry.isSidechain !== true;

const claude: TranscriptReader = {
  calls: (entry) =>
    (claudeLine(entry, 'assistant') ? claudeBlocks(entry) : [])
      .filter((b) => b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string')
      .map((b) => ({ id: b.id as string, name: b.name as string, server: null, input: b.input })),
  outcome(entry, id) {
    if (!claudeLine(entry, 'user')) return undefined;
    const block = claudeBlocks(entry).find((b) => b.type === 'tool_result' && b.tool_use_id === id);
    if (!block) return undefined;
    if (block.is_error === true) return { status: 'error' };
    const content = block.content;
    return { status: 'done', texts: typeof content === 'string' ? [content] : contentTexts(content) };
  },
  turn(entry) {
    if (entry.isSidechain === true) return [];
    const record: TurnRecord = {};
    const sessionId = str(entry.sessionId);
    const at = str(entry.timestamp);
    if (sessionId !== undefined) record.sessionId = sessionId;
    if (at !== undefined) record.at = at;
    const message = isEntry(entry.message) ? entry.message : {};
    const content = message.content;
    if (entry.type === 'user') {
      // A line that only carries tool results is part of the assistant's turn.
      const blocks = entries(content);
      const toolResults = blocks.length > 0 && blocks.every((b) => b.type === 'tool_result');
      if (entry.isMeta !== true && !toolResults) {
        record.prompt = true;
        const text = typeof content === 'string' ? content : contentTexts(content).join('\n');
        if (text !== '') record.promptText = text;
      }
    } else if (entry.type === 'assistant') {
      const id = str(message.id) ?? '';
      const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : entries(content);
      const words: TurnWords[] = [];
      for (const block of blocks) {
        let word: TurnWords | undefined;
        if (block.type === 'text' && typeof block.text === 'string') word = { text: block.text };
        else if (block.type === 'thinking') word = { text: str(block.thinking) ?? '', thinking: true };
        if (!word) continue;
        if (id) word.key = `${id}\u0000${word.text}`;
        words.push(word);
      }
      record.words = words;
    }
    return [record];
  },
  // Most of a transcript is tool results: `type:"user"` lines whose first block is one.
  isToolOutputHead: (head) => CLAUDE_USER.test(head) && CLAUDE_TOOL_RESULT.test(head),
  sessionOf: (entry) => str(entry.sessionId),
};

// Codex CLI

/** Rollout lines wrap items as `{type:"response_item", payload}`; the oldest rollouts did not. */
const codexItem = (entry: Entry): Entry =>
  entry.type === 'response_item' && isEntry(entry.payload) ? entry.payload : entry;

/** Context Codex puts in user-role messages (`<environment_context>`, AGENTS.md, …): not a prompt. */
const CODEX_CONTEXT = /^\s*(<[a-z_]+>|# AGENTS\.md instructions)/i;
const CODEX_TOOL_OUTPUT = /"type"\s*:\s*"(function_call_output|custom_tool_call_output)"/;

/**
 * Codex's structured record of a finished MCP call: `event_msg {type:"item_completed",
 * item:{type:"McpToolCall", id, server, tool, status, result:{content, structuredContent,
 * isError}}}`. It carries the server apart from the name and the result unwrapped, so where it
 * is present it is the better witness than the `function_call_output` text.
 */
function codexMcpItem(entry: Entry): Entry | undefined {
  if (entry.type !== 'event_msg' || !isEntry(entry.payload)) return undefined;
  const payload = entry.payload;
  if (payload.type !== 'item_completed' || !isEntry(payload.item)) return undefined;
  return payload.item.type === 'McpToolCall' ? payload.item : undefined;
}

function codexMcpOutcome(item: Entry): ToolOutcome | undefined {
  if (item.status === 'failed') return { status: 'error' };
  if (item.status !== 'completed') return undefined;
  const result = isEntry(item.result) ? item.result : {};
  if (result.isError === true) return { status: 'error' };
  // The structured result is the tool's own answer; the content is its rendering as text.
  if (result.structuredContent !== undefined)
    return { status: 'done', texts: [JSON.stringify(result.structuredContent)] };
  return { status: 'done', texts: contentTexts(result.content) };
}

/** Codex records a call's arguments as a JSON string. */
function parsedArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

const codex: TranscriptReader = {
  calls(entry) {
    const mcp = codexMcpItem(entry);
    if (mcp) {
      return typeof mcp.id === 'string' && typeof mcp.tool === 'string'
        ? [{ id: mcp.id, name: mcp.tool, server: str(mcp.server) ?? null, input: mcp.arguments }]
        : [];
    }
    const item = codexItem(entry);
    if (item.type !== 'function_call' || typeof item.call_id !== 'string' || typeof item.name !== 'string')
      return [];
    const namespace = str(item.namespace);
    const server = namespace === undefined ? null : namespace.replace(/^mcp__/, '');
    return [{ id: item.call_id, name: item.name, server, input: parsedArguments(item.arguments) }];
  },
  isStructuredResult: (entry) => codexMcpItem(entry) !== undefined,
  outcome(entry, id) {
    const mcp = codexMcpItem(entry);
    if (mcp) return mcp.id === id ? codexMcpOutcome(mcp) : undefined;
    const item = codexItem(entry);
    if (item.type !== 'function_call_output' || item.call_id !== id) return undefined;
    const output = item.output;
    if (typeof output === 'string')
      return output.startsWith('err: ') ? { status: 'error' } : { status: 'done', texts: [output] };
    if (isEntry(output)) {
      if (output.success === false) return { status: 'error' };
      const content = output.content;
      return { status: 'done', texts: typeof content === 'string' ? [content] : contentTexts(content) };
    }
    return { status: 'done', texts: contentTexts(output) };
  },
  turn(entry) {
    const record: TurnRecord = {};
    const at = str(entry.timestamp);
    if (at !== undefined) record.at = at;
    const payload = isEntry(entry.payload) ? entry.payload : {};
    if (entry.type === 'session_meta' && typeof payload.id === 'string') record.sessionId = payload.id;
    if (entry.type === 'event_msg' && payload.type === 'user_message') record.prompt = true;
    const item = codexItem(entry);
    if (item.type === 'message') {
      const texts = contentTexts(item.content);
      if (item.role === 'assistant') record.words = texts.map((text) => ({ text }));
      else if (item.role === 'user' && texts.length > 0 && !texts.some((t) => CODEX_CONTEXT.test(t))) {
        record.prompt = true;
        record.promptText = texts.join('\n');
      }
    }
    return [record];
  },
  isToolOutputHead: (head) => CODEX_TOOL_OUTPUT.test(head),
  // An event names its thread (0.169's `item_completed`, which carries the structured result).
  sessionOf: (entry) =>
    entry.type === 'event_msg' && isEntry(entry.payload) ? str(entry.payload.thread_id) : undefined,
  opensSession: { needle: '"session_meta"', of: codexSessionOpened },
};

/** `session_meta {id}` (0.169 also `session_id`); the oldest rollouts opened with a bare `{id, timestamp}`. */
function codexSessionOpened(entry: Entry): string | undefined {
  if (entry.type === 'session_meta' && isEntry(entry.payload))
    return str(entry.payload.id) ?? str(entry.payload.session_id);
  if (entry.type === undefined && entry.payload === undefined && typeof entry.timestamp === 'string')
    return str(entry.id);
  return undefined;
}

// Gemini CLI

/** Message records in a Gemini line: the record itself, or every message a `$set` rewrites. */
function geminiMessages(entry: Entry): Entry[] {
  return isEntry(entry.$set) && Array.isArray(entry.$set.messages) ? entries(entry.$set.messages) : [entry];
}

function geminiToolCalls(entry: Entry): Entry[] {
  return geminiMessages(entry)
    .filter((m) => m.type === 'gemini')
    .flatMap((m) => entries(m.toolCalls));
}

/** `bootstrap_session (firstlight MCP Server)`: Gemini's display name for an MCP tool. */
const GEMINI_MCP_DISPLAY = /\(([^()]*) MCP Server\)$/;

function geminiOutcome(call: Entry): ToolOutcome | undefined {
  if (call.status === 'error') return { status: 'error' };
  if (call.status === 'cancelled') return { status: 'cancelled' };
  if (call.status !== 'success') return undefined; // scheduled, executing, awaiting approval
  const texts: string[] = [];
  for (const part of Array.isArray(call.result) ? entries(call.result) : entries([call.result])) {
    const response = isEntry(part.functionResponse) ? part.functionResponse.response : undefined;
    if (isEntry(response)) {
      if (response.error !== undefined) return { status: 'error' };
      if (typeof response.output === 'string') texts.push(response.output);
      texts.push(...contentTexts(response.content));
    } else if (typeof part.text === 'string') texts.push(part.text);
  }
  return { status: 'done', texts };
}

/** A message's text parts (model thoughts are flagged `thought: true` and left out). */
function geminiTexts(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  const parts = Array.isArray(content) ? entries(content) : isEntry(content) ? [content] : [];
  return parts.filter((p) => typeof p.text === 'string' && p.thought !== true).map((p) => p.text as string);
}

function geminiMessage(message: Entry): TurnRecord {
  const record: TurnRecord = {};
  const key = str(message.id);
  const at = str(message.timestamp);
  if (key !== undefined) record.key = key;
  if (at !== undefined) record.at = at;
  const texts = geminiTexts(message.content);
  // A user record of function responses only (history rewritten by `$set`) is no prompt.
  if (message.type === 'user' && texts.some((t) => t.trim() !== '')) {
    record.prompt = true;
    record.promptText = texts.join('\n');
  } else if (message.type === 'gemini') record.words = texts.map((text) => ({ text }));
  return record;
}

const gemini: TranscriptReader = {
  calls: (entry) =>
    geminiToolCalls(entry)
      .filter((c) => typeof c.id === 'string' && typeof c.name === 'string')
      .map((c) => ({
        id: c.id as string,
        name: c.name as string,
        server: GEMINI_MCP_DISPLAY.exec(str(c.displayName) ?? '')?.[1] ?? null,
        input: c.args,
      })),
  outcome(entry, id) {
    const call = geminiToolCalls(entry).find((c) => c.id === id);
    return call ? geminiOutcome(call) : undefined;
  },
  turn(entry) {
    if (typeof entry.$rewindTo === 'string') return [{ rewindTo: entry.$rewindTo }];
    if (isEntry(entry.$set) && !Array.isArray(entry.$set.messages)) {
      const sessionId = str(entry.$set.sessionId);
      return sessionId === undefined ? [] : [{ sessionId }];
    }
    if (!isEntry(entry.$set) && typeof entry.id !== 'string') {
      // The metadata line (or a legacy document's head).
      const sessionId = str(entry.sessionId);
      return sessionId === undefined ? [] : [{ sessionId }];
    }
    return geminiMessages(entry).map(geminiMessage);
  },
  // A tool's output sits inside the message record that may also hold the agent's words.
  isToolOutputHead: () => false,
  // The document itself first (its sessionId), then its messages.
  document: (value) =>
    isEntry(value) && Array.isArray(value.messages) ? [value, ...entries(value.messages)] : null,
  sessionOf: () => undefined,
  opensSession: { needle: '"sessionId"', of: geminiSessionOpened },
};

/** The metadata line `{sessionId, projectHash, …}` (a legacy document's head too), or a `$set` of the id. */
function geminiSessionOpened(entry: Entry): string | undefined {
  if (isEntry(entry.$set)) return Array.isArray(entry.$set.messages) ? undefined : str(entry.$set.sessionId);
  return typeof entry.id === 'string' ? undefined : str(entry.sessionId);
}

// Copilot CLI

const copilotData = (entry: Entry): Entry => (isEntry(entry.data) ? entry.data : {});
const COPILOT_TOOL_OUTPUT = /^\{\s*"type"\s*:\s*"tool\.execution_complete"/;

const copilot: TranscriptReader = {
  calls: (entry) =>
    entry.type === 'assistant.message'
      ? entries(copilotData(entry).toolRequests)
          .filter((r) => typeof r.toolCallId === 'string' && typeof r.name === 'string')
          .map((r) => ({
            id: r.toolCallId as string,
            name: r.name as string,
            server: str(r.mcpServerName) ?? null,
          }))
      : [],
  outcome(entry, id) {
    const data = copilotData(entry);
    if (entry.type !== 'tool.execution_complete' || data.toolCallId !== id) return undefined;
    if (data.success !== true) return { status: 'error' };
    const result = isEntry(data.result) ? data.result : {};
    return { status: 'done', texts: typeof result.content === 'string' ? [result.content] : [] };
  },
  turn(entry) {
    const data = copilotData(entry);
    const record: TurnRecord = {};
    const at = str(entry.timestamp);
    if (at !== undefined) record.at = at;
    if (entry.type === 'session.start' && typeof data.sessionId === 'string')
      record.sessionId = data.sessionId;
    else if (entry.type === 'user.message') {
      record.prompt = true;
      const said = str(data.content);
      if (said !== undefined) record.promptText = said;
    } else if (entry.type === 'assistant.message') {
      const text = str(data.content) ?? '';
      const key = str(data.messageId);
      if (key !== undefined) record.key = key;
      record.words = text === '' ? [] : [{ text }];
    }
    return [record];
  },
  isToolOutputHead: (head) => COPILOT_TOOL_OUTPUT.test(head),
  // Copilot CLI names its session once, in the `session.start` record that opens events.jsonl.
  sessionOf: () => undefined,
  opensSession: {
    needle: '"session.start"',
    of: (entry) => (entry.type === 'session.start' ? str(copilotData(entry).sessionId) : undefined),
  },
};

export const TRANSCRIPT_READERS: Readonly<Record<TranscriptFormat, TranscriptReader>> = {
  claude,
  codex,
  gemini,
  copilot,
};
