import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import { ACCESS_LEVELS, type Access, admits, type ToolClass } from './policy.js';
import type { ServerConfig } from './profile.js';
import type { SubstrateTool } from './substrates/types.js';

/**
 * Tool classification and the session's tool set. A tool is `read_only`, `scratch` or
 * `mutating`: the profile's word first, then a server's `readOnlyHint` where the profile trusts
 * it, else `mutating` (unknown tools mutate). Server tools are named `server__tool`.
 */

/** Built-in tools of agent CLIs, classified; the profile's `classify` wins. */
export const BUILTIN_TOOL_CLASSES: Readonly<Record<string, ToolClass>> = {
  Read: 'read_only',
  Grep: 'read_only',
  Glob: 'read_only',
  LS: 'read_only',
  WebSearch: 'read_only',
  WebFetch: 'read_only',
  Write: 'mutating',
  Edit: 'mutating',
  MultiEdit: 'mutating',
  NotebookEdit: 'mutating',
  Bash: 'mutating',
};

/** One tool the session could have. */
export interface CatalogTool extends SubstrateTool {
  readonly cls: ToolClass;
  /** The server it comes from; absent for a built-in of the agent CLI. */
  readonly server?: string;
  /** Its name on that server. */
  readonly serverTool?: string;
  readonly operational: boolean;
}

export const TOOL_SEPARATOR = '__';

export function qualifiedName(server: string, tool: string): string {
  return `${server}${TOOL_SEPARATOR}${tool}`;
}

/** The class of one of a server's tools. */
export function classifyServerTool(
  server: ServerConfig,
  tool: Pick<McpTool, 'name' | 'annotations'>,
): ToolClass {
  const declared = server.classify[tool.name] ?? server.access;
  if (declared) return declared;
  if (server.trust_read_only_hint && tool.annotations?.readOnlyHint === true) return 'read_only';
  return 'mutating';
}

/** The class of a tool that comes from no server. */
export function classifyBuiltin(name: string, classify: Readonly<Record<string, ToolClass>>): ToolClass {
  return classify[name] ?? BUILTIN_TOOL_CLASSES[name] ?? 'mutating';
}

/** Union of several access levels: the widest. */
export function widestAccess(levels: readonly Access[]): Access {
  let widest = 0;
  for (const level of levels) widest = Math.max(widest, ACCESS_LEVELS.indexOf(level));
  return ACCESS_LEVELS[widest]!;
}

export interface ToolSetInput {
  readonly access: Access;
  /** Every server tool of the persona's servers, classified. */
  readonly catalog: readonly CatalogTool[];
  /** Explicitly requested tools (`--tool`); undefined: the role's default set. */
  readonly requested?: readonly string[];
  readonly classify: Readonly<Record<string, ToolClass>>;
}

export interface ToolSet {
  /** The locked set: what the substrate offers and the executor admits. */
  readonly tools: readonly CatalogTool[];
  /** Built-in tools the role may not hold (for agent CLIs to remove). */
  readonly removed: readonly string[];
  /** Requested tools the role may not hold: a `mutating_tools_for_role` refusal. */
  readonly forbidden: readonly { readonly name: string; readonly cls: ToolClass }[];
  /** Operational tools the role may not hold (a profile conflict only the live server revealed). */
  readonly operationalConflicts: readonly CatalogTool[];
}

/**
 * The session's tool set: operational tools always (never stripped), plus the requested
 * tools, or without a request every task-relevant tool the role's access admits.
 */
export function computeToolSet(input: ToolSetInput): ToolSet {
  const byName = new Map(input.catalog.map((tool) => [tool.name, tool]));
  const chosen = new Map<string, CatalogTool>();
  const forbidden: { name: string; cls: ToolClass }[] = [];
  const operationalConflicts: CatalogTool[] = [];
  for (const tool of input.catalog) {
    if (!tool.operational) continue;
    if (admits(input.access, tool.cls)) chosen.set(tool.name, tool);
    else operationalConflicts.push(tool);
  }
  if (input.requested) {
    for (const name of input.requested) {
      const tool: CatalogTool = byName.get(name) ?? {
        name,
        description: `${name} (built into the agent)`,
        inputSchema: { type: 'object' },
        cls: classifyBuiltin(name, input.classify),
        operational: false,
      };
      if (admits(input.access, tool.cls)) chosen.set(name, tool);
      else forbidden.push({ name, cls: tool.cls });
    }
  } else {
    for (const tool of input.catalog) {
      if (!tool.operational && admits(input.access, tool.cls)) chosen.set(tool.name, tool);
    }
  }
  const builtins = new Set([...Object.keys(BUILTIN_TOOL_CLASSES), ...Object.keys(input.classify)]);
  const removed = [...builtins].filter(
    (name) => !chosen.has(name) && !admits(input.access, classifyBuiltin(name, input.classify)),
  );
  return { tools: [...chosen.values()], removed: removed.sort(), forbidden, operationalConflicts };
}

/** Statically knowable classes of requested tools (built-ins and profile-classified server tools). */
export function staticToolClass(
  name: string,
  servers: Readonly<Record<string, ServerConfig>>,
  classify: Readonly<Record<string, ToolClass>>,
): ToolClass | undefined {
  const at = name.indexOf(TOOL_SEPARATOR);
  if (at > 0) {
    const server = servers[name.slice(0, at)];
    if (!server) return classifyBuiltin(name, classify);
    const tool = name.slice(at + TOOL_SEPARATOR.length);
    const declared = server.classify[tool] ?? server.access;
    if (declared) return declared;
    return server.trust_read_only_hint ? undefined : 'mutating';
  }
  return classifyBuiltin(name, classify);
}
