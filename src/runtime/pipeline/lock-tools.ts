import { resolve } from 'node:path';
import { ConfigError, matchToolGlob } from '../../core/index.js';
import type { Hub } from '../../hub/index.js';
import { type CatalogTool, classifyServerTool, computeToolSet, qualifiedName } from '../tools.js';
import type { InvokeResult } from '../types.js';
import { type Admission, mutatingRefusal } from './check-policy.js';
import type { Invocation } from './invocation.js';

/**
 * Stage 4, start the persona's servers and lock the tools: connect the operational and
 * task-relevant servers through the hub, classify their tools, compute the role's set and lock
 * it. A continued session keeps exactly the set it locked at its start (the policy already
 * refused a request naming any other tool).
 */

export interface LockedTools {
  /** The servers' connections; closed by the caller when the session ends. */
  readonly hub?: Hub;
  /** Every tool the servers offer, classified. */
  readonly catalog: readonly CatalogTool[];
  /** The locked set: what the substrate offers and the executor admits. */
  readonly locked: ReadonlyMap<string, CatalogTool>;
  /** Built-in tools the role may not hold (for agent CLIs to remove). */
  readonly removed: readonly string[];
}

export async function lockTools(
  inv: Invocation,
  admission: Admission,
  onHub: (hub: Hub) => void,
): Promise<LockedTools | InvokeResult> {
  const { profile, request } = inv;
  const serverNames = [...profile.operational, ...profile.taskRelevant];
  let hub: Hub | undefined;
  const catalog: CatalogTool[] = [];
  if (serverNames.length > 0) {
    const { Hub } = await import('../../hub/index.js');
    hub = new Hub({ log: inv.context.log, clientName: 'firstlight-runtime' });
    onHub(hub);
    const connections = await Promise.all(
      serverNames.map((name) => {
        const server = profile.servers[name]!;
        return hub!.connect(name, {
          // Every listed server has one (the profile, or the request's `servers`, gave it).
          command: server.command ?? '',
          args: server.args,
          env: server.env,
          cwd: server.cwd ? resolve(inv.context.cwd, server.cwd) : inv.context.cwd,
        });
      }),
    );
    for (const connection of connections) {
      const server = profile.servers[connection.name]!;
      for (const tool of connection.tools) {
        if (server.tools && matchToolGlob(tool.name, server.tools) === null) continue;
        catalog.push({
          name: qualifiedName(connection.name, tool.name),
          description: tool.description ?? '',
          inputSchema: tool.inputSchema as Record<string, unknown>,
          cls: classifyServerTool(server, tool),
          server: connection.name,
          serverTool: tool.name,
          operational: profile.operational.includes(connection.name),
        });
      }
    }
  }
  const prior = admission.prior;
  const requested = prior
    ? prior.tools
    : request.tools && request.tools.length > 0
      ? request.tools
      : undefined;
  const toolSet = computeToolSet({
    access: admission.access,
    catalog,
    ...(requested ? { requested } : {}),
    classify: profile.classify,
  });
  if (toolSet.forbidden.length > 0) {
    return mutatingRefusal(
      inv,
      admission.access,
      toolSet.forbidden.map((f) => f.name),
      admission.override !== undefined,
    );
  }
  if (toolSet.operationalConflicts.length > 0) {
    const names = toolSet.operationalConflicts.map((t) => t.name).join(', ');
    throw new ConfigError(
      `${profile.file}: operational tools ${names} are not read-only, and role ${inv.role.name} may not hold them`,
      {
        code: 'PROFILE_INVALID',
        file: profile.file,
        field: 'mcp_servers.operational',
        hint: 'narrow the server with servers.<name>.tools to its read tools, classify them, or move the server to task_relevant',
      },
    );
  }
  // A continued session: exactly the set locked at its start, never a tool more (a server that
  // now offers another operational tool does not widen it).
  const tools = prior ? toolSet.tools.filter((tool) => prior.tools.includes(tool.name)) : toolSet.tools;
  return {
    ...(hub ? { hub } : {}),
    catalog,
    locked: new Map(tools.map((tool) => [tool.name, tool])),
    removed: toolSet.removed,
  };
}
