import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A tool result with `isError`, carrying its text for the caller to raise. */
export class ToolResultError extends Error {
  constructor(
    message: string,
    readonly result: CallToolResult,
  ) {
    super(message);
    this.name = 'ToolResultError';
  }
}

function parseMaybeJson(text: string): unknown {
  const trimmed = text.trim();
  if (!/^[[{"]|^-?\d|^(true|false|null)$/.test(trimmed)) return text;
  try {
    return JSON.parse(trimmed);
  } catch {
    return text;
  }
}

/** The text of a result's text blocks, for error messages. */
export function resultText(result: CallToolResult): string {
  return (result.content ?? [])
    .filter((block) => block.type === 'text')
    .map((block) => (block as { text: string }).text)
    .join('\n');
}

/**
 * The text a result's `structuredContent` only wraps: one string field equal to the text of its
 * one text block (server-filesystem answers `{"content": text}` beside the text), else undefined.
 */
function wrappedText(result: CallToolResult): string | undefined {
  const structured = result.structuredContent;
  const content = result.content ?? [];
  if (!structured || content.length !== 1 || content[0]?.type !== 'text') return undefined;
  const values = Object.values(structured);
  const text = (content[0] as { text: string }).text;
  return values.length === 1 && values[0] === text ? text : undefined;
}

/**
 * The value a program wants from a tool result: `isError` throws; else the text, as it is, when
 * `structuredContent` only wraps it; else `structuredContent`; else all-text content as JSON
 * when it parses (one block: the value, several: a list); else the content blocks as they are
 * (images, resources); no content: null.
 */
export function unwrapToolResult(result: CallToolResult): unknown {
  if (result.isError) {
    throw new ToolResultError(resultText(result) || 'the tool reported an error without text', result);
  }
  const wrapped = wrappedText(result);
  if (wrapped !== undefined) return wrapped;
  if (result.structuredContent !== undefined && result.structuredContent !== null)
    return result.structuredContent;
  const content = result.content ?? [];
  if (content.length === 0) return null;
  if (content.every((block) => block.type === 'text')) {
    const values = content.map((block) => parseMaybeJson((block as { text: string }).text));
    return values.length === 1 ? values[0] : values;
  }
  return content;
}
