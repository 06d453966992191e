import { type Frontmatter, parseFrontmatter } from '../../core/index.js';

const FENCE = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;
/** `key: value` where the value is JSON firstlight's renderFrontmatter wrote: a string or a list. */
const JSON_LINE = /^([A-Za-z_][\w-]*): (".*"|\[.*\]|-?\d+(?:\.\d+)?|true|false)$/;

/**
 * parseFrontmatter with a fast path: every `remember` writes each field as `key: <JSON>`, and
 * JSON strings, lists of strings, numbers and booleans mean the same in YAML. Such blocks are
 * read with JSON.parse (a 10,000-memory cold start spent ~1 s in the YAML parser); anything
 * else (hand-written YAML, dates, nesting, comments) goes to the full YAML parser.
 */
export function readFrontmatter(text: string): Frontmatter {
  const match = FENCE.exec(text);
  if (!match) return { data: {}, body: text };
  const data: Record<string, unknown> = {};
  for (const line of (match[1] ?? '').split(/\r?\n/)) {
    const m = JSON_LINE.exec(line);
    if (!m) return parseFrontmatter(text);
    try {
      const value: unknown = JSON.parse(m[2] as string);
      if (Array.isArray(value) && !value.every((v) => typeof v === 'string')) return parseFrontmatter(text);
      data[m[1] as string] = value;
    } catch {
      return parseFrontmatter(text);
    }
  }
  return { data, body: text.slice(match[0].length) };
}

/** True when `text` opens a frontmatter block (`---` line) that no `---` line closes. */
export function unclosedFrontmatter(text: string): boolean {
  return /^---\r?\n/.test(text) && !FENCE.test(text);
}

/** The body of a memory file, without parsing its frontmatter (already read into its entry). */
export function bodyOf(text: string): string {
  const match = FENCE.exec(text);
  return match ? text.slice(match[0].length) : text;
}
