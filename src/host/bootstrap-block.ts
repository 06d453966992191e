/**
 * The bootstrap rule as it goes into host instruction files: the seed's host snippet (decision
 * tree, per-turn cognition, body-versus-mind routing, and why), wrapped in versioned markers.
 * Bump BLOCK_VERSION whenever the text changes: doctor reports older blocks as stale.
 */
import { SERVER_NAME } from './hook/own-tools.js';

export const BLOCK_VERSION = 2;
export const BLOCK_END = '<!-- /firstlight:bootstrap -->';
export const blockBegin = (version: number = BLOCK_VERSION): string =>
  `<!-- firstlight:bootstrap v=${version} -->`;

/** Every begin…end pair, whatever its version. */
const PAIR = /<!-- firstlight:bootstrap v=(\d+) -->[\s\S]*?<!-- \/firstlight:bootstrap -->/g;

export const BLOCK_BODY = `## firstlight: session bootstrap (required)

When the \`${SERVER_NAME}\` MCP server is available, call \`bootstrap_session()\` before the first
substantive answer or external tool call. Treat its result as the active mind contract for the
session; if it carries \`resumption\`, continue from it without repeating your last message.

Why this is here: MCP server instructions (FastMCP instructions) are not reliably injected into
the model context; hosts read instruction files like this one, tool descriptions and tool results.
High-blast-radius tools stay gated until \`bootstrap_session()\` has succeeded.

Decision tree:
1. \`bootstrap_session()\` succeeds and \`mind_contract_available\` is true: proceed with the returned mind contract.
2. \`bootstrap_session()\` is unavailable but the older tools exist: call \`get_system_prompt()\`, \`context()\`, then \`list_memory_files()\`.
3. \`bootstrap_session()\` returns \`mind_contract_available: false\` or a malformed contract, or the fallback \`get_system_prompt()\` returns an error: say the mind is degraded and do not impersonate the persona.
4. The ${SERVER_NAME} server is unreachable: say you are running in degraded body-only mode before using tools that depend on memory, personality or cognition discipline.

Per turn:
- \`observe(tool_name, args, expected=...)\` before an external tool call and \`observe(tool_name, args, result=...)\` after it, unless the body wraps calls mechanically.
- \`reflect(observation, kind="user_said")\` when the user gives behaviour feedback, changes direction or shares durable context.
- \`recall(query, k, facet)\` when the packet or an observe result points at memory the excerpt does not cover.

Body versus mind: the body (this host, its tools, security, audit, external state) wins for
security and tool use; the mind (voice, memory, continuity, cognition discipline) wins for
continuity and voice where that does not conflict with body safety.`;

/** The whole marked block. */
export function renderBlock(version: number = BLOCK_VERSION, body: string = BLOCK_BODY): string {
  return `${blockBegin(version)}\n${body}\n${BLOCK_END}`;
}

/** Frontmatter of the Cursor rule file install creates; `alwaysApply` must be a boolean. */
export const CURSOR_RULE_FRONTMATTER =
  '---\ndescription: firstlight session bootstrap (call bootstrap_session first)\nalwaysApply: true\n---\n';

/** Versions of every block in `text` (empty when there is none). */
export function blockVersions(text: string): number[] {
  return [...text.matchAll(PAIR)].map((m) => Number(m[1]));
}

/**
 * Puts the current block into `text`: every existing pair is replaced (the first by the block,
 * the rest removed with the blank line before them); without markers the block is appended after
 * one blank line. Nothing else changes.
 */
export function upsertBlock(text: string, block: string = renderBlock()): string {
  if (blockVersions(text).length === 0) {
    if (text.length === 0) return `${block}\n`;
    const sep = text.endsWith('\n\n') ? '' : text.endsWith('\n') ? '\n' : '\n\n';
    return `${text}${sep}${block}\n`;
  }
  let first = true;
  return text.replace(new RegExp(`(\\n\\n)?${PAIR.source}`, 'g'), (match, gap: string | undefined) => {
    if (first) {
      first = false;
      return `${gap ?? ''}${block}`;
    }
    void match;
    return '';
  });
}

/** Removes every block and the blank line install put before it. */
export function removeBlock(text: string): string {
  const removed = text.replace(
    new RegExp(`(\\n\\n?)?${PAIR.source}\\n?`, 'g'),
    (_m, gap: string | undefined) => (gap ? '\n' : ''),
  );
  return removed === '\n' ? '' : removed;
}
