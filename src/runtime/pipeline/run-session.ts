import { type AttemptsResult, runAttempts } from '../attempts.js';
import { SANDBOX_DENIAL } from '../substrates/index.js';
import type { SubstrateEvent, ToolCall, ToolCallResult } from '../substrates/types.js';
import type { Admission } from './check-policy.js';
import type { Composed } from './compose-prompt.js';
import type { Invocation } from './invocation.js';
import type { LockedTools } from './lock-tools.js';
import type { ResolvedSubstrate } from './resolve-substrate.js';

/**
 * Stage 7, run the substrate and post-process: the substrate is offered the locked
 * tools only, and every tool call it sends back goes through `executeTool`, which rejects a
 * name outside the lock (journaled, in `meta.denials`) before anything runs. Each attempt's
 * answer is then read against the surface and the role (attempts.ts): a problem earns a
 * bounded retry, then a named failure. An agent CLI's own refusals are journaled the same way.
 */

export interface SessionRun extends AttemptsResult {
  /** Tool calls the model made that were not denied, in order (for `override_end`). */
  readonly toolCalls: readonly string[];
}

export async function runSession(
  inv: Invocation,
  admission: Admission,
  tools: LockedTools,
  resolved: ResolvedSubstrate,
  composed: Composed,
): Promise<SessionRun> {
  const { role, profile, baseFields, meta } = inv;
  const session = meta.session_id;
  const { locked, hub, catalog } = tools;
  const executeTool = async (call: ToolCall): Promise<ToolCallResult> => {
    const tool = locked.get(call.name);
    if (!tool) {
      const reason = 'not_in_session_tool_set';
      meta.denials.push({ tool: call.name, reason });
      await inv.ledger.appendJournal([
        {
          kind: 'denial',
          title: `${call.name} refused to ${role.name} at execution`,
          session,
          fields: {
            ...baseFields,
            tool: call.name,
            reason,
            input: JSON.stringify(call.input ?? {}).slice(0, 200),
          },
        },
      ]);
      return {
        output: `denied: ${call.name} is not in this session's tool set (role ${role.name}, ${admission.access}); the tool set is locked at session start`,
        isError: true,
        denied: { reason },
      };
    }
    if (!tool.server || !hub) {
      return { output: `${call.name} runs inside the agent, not in the runtime`, isError: true };
    }
    try {
      const result = await hub
        .get(tool.server)!
        .callTool(tool.serverTool!, (call.input ?? {}) as Record<string, unknown>);
      const { resultText } = await import('../../hub/index.js');
      return {
        output: resultText(result) || JSON.stringify(result.structuredContent ?? null),
        isError: result.isError === true,
      };
    } catch (error) {
      return { output: `tool call failed: ${(error as Error).message}`, isError: true };
    }
  };
  const calls: string[] = [];
  const onEvent = inv.request.onEvent ?? (() => {});
  const controller = new AbortController();
  const wallTimer = profile.budget?.wall_time_ms
    ? setTimeout(() => controller.abort(), profile.budget.wall_time_ms)
    : undefined;
  const serverNames = [...profile.operational, ...profile.taskRelevant];
  const { substrate, sandbox } = resolved;
  const result = await runAttempts({
    substrate,
    request: {
      sessionId: session,
      systemPrompt: composed.systemPrompt,
      tools: [...locked.values()].map(({ name, description, inputSchema }) => ({
        name,
        description,
        inputSchema,
      })),
      // An agent CLI starts the servers itself, so their tools outside the set are removed too.
      removedTools: [...tools.removed, ...catalog.filter((t) => !locked.has(t.name)).map((t) => t.name)],
      // For substrates that start the servers themselves (agent CLIs); API substrates use executeTool.
      mcpServers: Object.fromEntries(
        serverNames.map((name) => {
          const server = profile.servers[name]!;
          return [name, { command: server.command ?? '', args: server.args, env: server.env }];
        }),
      ),
      executeTool,
      budget: {
        maxTurns: profile.budget?.max_turns ?? 20,
        ...(profile.budget?.max_tokens ? { maxTokens: profile.budget.max_tokens } : {}),
        ...(profile.budget?.wall_time_ms ? { wallTimeMs: profile.budget.wall_time_ms } : {}),
      },
      ...(sandbox.request ? { sandbox: sandbox.request } : {}),
      signal: controller.signal,
      onEvent: (event: SubstrateEvent) => {
        if (event.type === 'tool_call') calls.push(event.name);
        onEvent(event);
      },
    },
    messages: composed.messages,
    surfaceProfile: inv.surfaceProfile,
    mode: inv.mode,
    produces: role.produces,
    requireHandoff: !admission.override,
    engagement: inv.request.engagement,
    handoffInputs: meta.handoff_inputs,
  });
  if (wallTimer) clearTimeout(wallTimer);
  meta.attempts = result.attempts;
  if (result.permissionDenials.length > 0) {
    for (const denial of result.permissionDenials)
      meta.denials.push({ tool: denial.tool, reason: denial.reason ?? 'substrate_permission_denial' });
    await inv.ledger.appendJournal(
      result.permissionDenials.map((denial) => ({
        kind: 'denial' as const,
        title: `${denial.tool} refused to ${role.name} by ${substrate.kind}${denial.reason === SANDBOX_DENIAL ? "'s OS sandbox" : ''}`,
        session,
        fields: {
          ...baseFields,
          tool: denial.tool,
          reason: denial.reason ?? 'substrate_permission_denial',
          substrate: substrate.kind,
          input: JSON.stringify(denial.input ?? {}).slice(0, 200),
        },
      })),
    );
  }
  // The calls made: every call the model sent, less one of the same name for each denial.
  const made = [...calls];
  for (const denial of meta.denials) {
    const at = made.lastIndexOf(denial.tool);
    if (at >= 0) made.splice(at, 1);
  }
  return { ...result, toolCalls: made };
}
