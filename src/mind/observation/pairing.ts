import { boundedJson } from './digest.js';
import { type CognitionEvent, eventFileFor, readRecentEvents } from './events.js';

/** An expectation waits this long for its result; older ones are not paired. */
export const EXPECTATION_TTL_MS = 30 * 60 * 1000;

/** An `observe(expected=…)` still waiting for its outcome. */
export interface PendingExpectation {
  id: string;
  session: string;
  tool: string;
  argsHash: string;
  /** The args as the agent gave them (parsed back from the event), when they parse. */
  args: unknown;
  expected: string;
  at: number;
}

/** A call's outcome looking for its expectation. */
export interface CallOutcome {
  /** The host's session id (a hook) or the connection's key (the MCP tool). */
  session: string;
  tool: string;
  argsHash: string;
  args: unknown;
  now: Date;
  /** Who answers: each expectation is answered once by the agent's own observe and once by a hook. */
  by: 'tool' | 'hook';
}

/**
 * The before-call observations of the last EXPECTATION_TTL_MS that no outcome from `by` has
 * answered yet, oldest first; read from the tail of the day files (yesterday's too, across
 * UTC midnight), parsing only lines that carry an expectation or answer one.
 */
export function pendingExpectations(eventsDir: string, now: Date, by: 'tool' | 'hook'): PendingExpectation[] {
  const files = new Set(
    [new Date(now.getTime() - EXPECTATION_TTL_MS), now].map((d) => eventFileFor(eventsDir, d)),
  );
  const relevant = (line: string) => line.includes('"expected"') || line.includes('"expectation_of"');
  const events = [...files].flatMap((file) => {
    try {
      return readRecentEvents(file, undefined, relevant);
    } catch (error) {
      // Name the file: "could not read … from <file>: EISDIR …".
      throw Object.assign(new Error(`${file}: ${(error as Error).message}`), {
        code: (error as NodeJS.ErrnoException).code,
      });
    }
  });
  const answeredBy = (e: CognitionEvent) => (e.source === 'hook' ? 'hook' : 'tool');
  const answered = new Set(
    events.filter((e) => e.expectation_of && answeredBy(e) === by).map((e) => e.expectation_of),
  );
  return events
    .filter((e) => e.kind === 'observe' && e.expected && e.result === undefined && !answered.has(e.id))
    .map((e) => ({
      id: e.id,
      session: e.session ?? '',
      tool: e.tool_name ?? '',
      argsHash: e.args_hash ?? '',
      args: parseArgs(e.args),
      expected: e.expected!,
      at: Date.parse(e.ts),
    }))
    .filter((p) => now.getTime() - p.at <= EXPECTATION_TTL_MS);
}

function parseArgs(text: string | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // clipped
  }
}

/**
 * The same tool, as the agent and the host spell it: equal ignoring case, or the host's name is
 * an MCP-prefixed form of the agent's (`mcp__github__create_pr` for `create_pr`).
 */
export function sameTool(agentSaid: string, hostSaid: string): boolean {
  const a = agentSaid.toLowerCase();
  const h = hostSaid.toLowerCase();
  return (
    a === h || h.endsWith(`__${a}`) || h.endsWith(`_${a}`) || h.endsWith(`-${a}`) || a.endsWith(`__${h}`)
  );
}

/**
 * Every argument the agent named has the value the host sent (the host may add fields of its
 * own, such as Claude Code's `description` on Bash). Strings compare trimmed.
 */
export function argsCover(agentArgs: unknown, hostArgs: unknown): boolean {
  if (!agentArgs || typeof agentArgs !== 'object' || Array.isArray(agentArgs)) return false;
  if (!hostArgs || typeof hostArgs !== 'object' || Array.isArray(hostArgs)) return false;
  const entries = Object.entries(agentArgs as Record<string, unknown>);
  if (entries.length === 0) return false;
  const host = hostArgs as Record<string, unknown>;
  const norm = (v: unknown) => (typeof v === 'string' ? v.trim() : boundedJson(v));
  return entries.every(([k, v]) => k in host && norm(host[k]) === norm(v));
}

/**
 * The expectation an outcome answers: among pending ones of the same tool, those of the same
 * session or whose arguments the call bears out (a hook knows the host's session id, the agent's
 * observe may not); the newest with both, else the newest with matching arguments, else the
 * newest of the same session.
 */
export function pickExpectation(
  pending: PendingExpectation[],
  call: CallOutcome,
): PendingExpectation | undefined {
  const newestFirst = [...pending].reverse().filter((p) => sameTool(p.tool, call.tool));
  const argsMatch = (p: PendingExpectation) => p.argsHash === call.argsHash || argsCover(p.args, call.args);
  return (
    newestFirst.find((p) => p.session === call.session && argsMatch(p)) ??
    newestFirst.find(argsMatch) ??
    newestFirst.find((p) => p.session === call.session)
  );
}
