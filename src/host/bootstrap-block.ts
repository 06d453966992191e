/**
 * The bootstrap rule as it goes into host instruction files: the seed's host snippet (decision
 * tree, per-turn cognition, body-versus-mind routing, and why), wrapped in versioned markers.
 * Bump BLOCK_VERSION whenever the text changes: doctor reports older blocks as stale.
 */
import { SERVER_NAME } from './hook/own-tools.js';

export const BLOCK_VERSION = 3;
export const BLOCK_END = '<!-- /firstlight:bootstrap -->';
export const blockBegin = (version: number = BLOCK_VERSION): string =>
  `<!-- firstlight:bootstrap v=${version} -->`;

/** Every begin…end pair, whatever its version. */
const PAIR = /<!-- firstlight:bootstrap v=(\d+) -->[\s\S]*?<!-- \/firstlight:bootstrap -->/g;

/**
 * The block's text. `toolPrefix`: how the one host reading this file names our tools
 * (`mcp__firstlight__` on Claude Code), so every name in it is one the model can call; without
 * one (a file several hosts read, AGENTS.md) the plain names, and how hosts prefix them.
 */
export function blockBody(toolPrefix?: string): string {
  const t = (name: string) => `\`${toolPrefix ?? ''}${name}()\``;
  const names =
    toolPrefix === undefined
      ? `\nYour host may prefix these tool names (\`mcp__${SERVER_NAME}__bootstrap_session\`, \`${SERVER_NAME}-bootstrap_session\`, \`mcp_${SERVER_NAME}_bootstrap_session\`): call them by the name it offers.\n`
      : '';
  return `## firstlight: session bootstrap (required)

When the \`${SERVER_NAME}\` MCP server is available, call ${t('bootstrap_session')} before the first
substantive answer or external tool call. Treat its result as the active mind contract for the
session; if it carries \`resumption\`, continue from it without repeating your last message.
${names}
Why this is here: MCP server instructions (FastMCP instructions) are not reliably injected into
the model context; hosts read instruction files like this one, tool descriptions and tool results.
High-blast-radius tools stay gated until ${t('bootstrap_session')} has succeeded.

Decision tree:
1. ${t('bootstrap_session')} succeeds and \`mind_contract_available\` is true: proceed with the returned mind contract.
2. ${t('bootstrap_session')} is unavailable but the older tools exist: call ${t('get_system_prompt')}, ${t('context')}, then ${t('list_memory_files')}.
3. ${t('bootstrap_session')} returns \`mind_contract_available: false\` or a malformed contract, or the fallback ${t('get_system_prompt')} returns an error: say the mind is degraded and do not impersonate the persona.
4. The ${SERVER_NAME} server is unreachable: say you are running in degraded body-only mode before using tools that depend on memory, personality or cognition discipline.

Per turn:
- ${t('observe')} with \`expected=...\` before an external tool call and with \`result=...\` after it, when the body has not wrapped the call mechanically (efferent copy: firstlight's tool hooks record calls on hosts that run them).
- ${t('reflect')} for user statements, time passing, ambient observations, persona drift or behavioural feedback: \`kind\` is \`user_said\`, \`time_passed\`, \`ambient\` or \`internal\`.
- ${t('recall')} with a query, \`k\` and \`facet\` when the packet or an observe result points at memory the excerpt does not cover.

Efferent copy may mechanically cover \`observe\` around body tools, but it does not cover session
bootstrap, \`reflect\`, \`recall\`, or ordinary text replies: those are yours.

Body versus mind: the body (this host, its tools, security, audit, external state) wins for
security and tool use; the mind (voice, memory, continuity, cognition discipline) wins for
continuity and voice where that does not conflict with body safety.`;
}

/** The block for a file several hosts read (and the text printed for pasting). */
export const BLOCK_BODY = blockBody();

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
