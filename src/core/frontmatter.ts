import { parse as parseYaml } from 'yaml';

/** A markdown file split into its YAML frontmatter and body. */
export interface Frontmatter {
  data: Record<string, unknown>;
  body: string;
  /** Set when a frontmatter block exists but is not a YAML mapping. */
  error?: string;
}

const FENCE = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** Splits `---\nyaml\n---\nbody`. A file without frontmatter has `data: {}`; bad YAML sets `error`. */
export function parseFrontmatter(text: string): Frontmatter {
  const match = FENCE.exec(text);
  if (!match) return { data: {}, body: text };
  const body = text.slice(match[0].length);
  try {
    const parsed: unknown = parseYaml(match[1] ?? '');
    if (parsed === null || parsed === undefined) return { data: {}, body };
    if (typeof parsed !== 'object' || Array.isArray(parsed)) {
      return { data: {}, body, error: 'frontmatter is not a YAML mapping' };
    }
    return { data: parsed as Record<string, unknown>, body };
  } catch (error) {
    return {
      data: {},
      body,
      error: `frontmatter is not valid YAML: ${(error as Error).message.split('\n')[0]}`,
    };
  }
}

/** Renders frontmatter + body; keys with undefined values are left out. */
export function renderFrontmatter(data: Record<string, unknown>, body: string): string {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (value === undefined) continue;
    lines.push(`${key}: ${JSON.stringify(value)}`);
  }
  return `---\n${lines.join('\n')}\n---\n${body.endsWith('\n') ? body : `${body}\n`}`;
}
