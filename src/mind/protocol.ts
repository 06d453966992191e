/**
 * The cognition protocol the packet carries: the per-turn rules, in the order they apply, each
 * with the tools it needs. A rule whose tools are not registered is left out: the packet never
 * tells the agent to call something that does not exist.
 */
const RULES: readonly (readonly [string[], string])[] = [
  [
    [],
    'Call bootstrap_session before the first substantive answer or external tool call; if resumption is present, continue from it without repeating your last message.',
  ],
  [
    [],
    'If mind_contract_available is false, say the mind is degraded and do not impersonate the persona; if the firstlight server is unreachable, say you are running body-only.',
  ],
  [
    ['observe'],
    'Use observe(tool_name, args, expected=...) before an external tool call and observe(tool_name, args, result=...) after it, unless the body wraps calls mechanically.',
  ],
  [
    ['reflect'],
    'Use reflect(observation, kind) for what is not a tool call: user_said (feedback, direction changes, durable personal context), time_passed, ambient, internal.',
  ],
  [
    ['recall', 'remember'],
    'Use recall(query, k, facet) when bootstrap or observe shows relevant memory but the excerpt is not enough; remember(content, type, ...) what should outlive this session.',
  ],
  [
    ['observe'],
    'Surface cautionary_flags before acting, and stop to re-plan when prediction_error is greater than 0.7.',
  ],
  [
    ['internalize'],
    'Before the session ends or context is compacted, call internalize(stream_tail, anchors) with your own last thought, verbatim.',
  ],
];

/** The protocol lines whose tools are all among `toolNames`. */
export function cognitionProtocol(toolNames: readonly string[]): string[] {
  const have = new Set(toolNames);
  return RULES.filter(([needs]) => needs.every((t) => have.has(t))).map(([, rule]) => rule);
}

/** Why the packet exists at all; the host facts that make the rule necessary. */
export const HOST_LIMITATIONS: readonly string[] = [
  'FastMCP instructions (MCP server instructions) are not reliable model context: Claude Code truncates them and drops them for HTTP servers; Copilot CLI and Codex ignore them.',
  'Tool descriptions, tool results, host instruction files and SessionStart hook output are what reliably reach the model.',
  'Mechanical observe() wrapping can cover body tools, but not reflect, recall, or text-only replies.',
];

/** The rule that goes first in server instructions and tool descriptions. */
export const BOOTSTRAP_RULE =
  'Call bootstrap_session() FIRST, before your first substantive answer or any external tool call: it returns your mind contract, what you were in the middle of, active context, memory catalog and per-turn protocol in one packet.';
