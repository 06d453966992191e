import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import {
  ConfigError,
  type Logger,
  loadSettings,
  memoByFiles,
  NotFoundError,
  type Settings,
  UserError,
} from '../core/index.js';
import { runAttempts } from './attempts.js';
import { detect } from './detectors.js';
import {
  type HandoffRecord,
  missingFields,
  newHandoffId,
  readHandoff,
  resolveHandoffInput,
  writeHandoff,
} from './handoffs.js';
import { appendJournal, type JournalWrite, journalFile, readJournal } from './journal.js';
import { type Override, overrideProblems, readOverrideFile } from './override.js';
import {
  admits,
  canonicalSurface,
  type HandoffKind,
  type Mode,
  type RefusalReason,
  ROLE_POLICY,
  SURFACE_ENGAGEMENT,
} from './policy.js';
import { loadProfileCached, type Profile, type ProfileRole } from './profile.js';
import { composeSystemPrompt, composeTaskMessage, promptBody } from './prompt.js';
import { readSession, type SessionState, writeSession } from './sessions.js';
import { resolveSubstrate, SANDBOX_DENIAL, sessionSandbox } from './substrates/index.js';
import type { Substrate, SubstrateMessage, ToolCall, ToolCallResult } from './substrates/types.js';
import { applyVoice, VOICES, type Voice } from './surfaces.js';
import { type CatalogTool, computeToolSet, staticToolClass, widestAccess } from './tools.js';
import type { InvokeMeta, InvokeOutput, InvokeRequest, InvokeResult } from './types.js';

/** What every invocation of one runtime shares. */
export interface RuntimeContext {
  readonly home: string;
  /** The project root; its `.firstlight/` is the ledger. Without it the home is. */
  readonly project?: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly substrate?: Substrate | string;
  readonly log: Logger;
}

/** Where journal, handoffs and sessions live: `<project>/.firstlight`, else the home. */
export function ledgerDir(context: Pick<RuntimeContext, 'home' | 'project'>): string {
  return context.project ? join(context.project, '.firstlight') : context.home;
}

const settingsMemo = new Map<string, () => Settings>();

/** The home's settings (substrates: and the rest), re-read only when firstlight.yaml changes. */
function settingsOf(home: string): Settings {
  const file = join(home, 'firstlight.yaml');
  let memo = settingsMemo.get(file);
  if (!memo) {
    memo = memoByFiles(() => ({ value: loadSettings(file).settings, files: [file] }));
    settingsMemo.set(file, memo);
  }
  return memo();
}

/** The mode that reads a handoff of each kind. */
const CONSUMER_MODE: Readonly<Record<HandoffKind, Mode>> = {
  synthesis: 'planning',
  plan: 'execution',
  artifact: 'validation',
  findings: 'resolution',
  revision: 'validation',
};
const PRODUCER_MODE: Readonly<Record<HandoffKind, Mode>> = {
  synthesis: 'exploration',
  plan: 'planning',
  artifact: 'execution',
  findings: 'validation',
  revision: 'resolution',
};
const MODE_ROLE: Readonly<Record<Mode, keyof typeof ROLE_POLICY>> = {
  exploration: 'explorer',
  planning: 'planner',
  execution: 'builder',
  validation: 'validator',
  resolution: 'resolver',
};

export function newSessionId(): string {
  return `s-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

/** Runs one invocation through the pipeline. Bad usage throws a UserError; refusals return. */
export async function invoke(context: RuntimeContext, request: InvokeRequest): Promise<InvokeResult> {
  const t0 = performance.now();
  const startedAt = new Date();
  const ledger = ledgerDir(context);
  const journalDir = join(ledger, 'journal');
  const sessionId = request.continue ?? newSessionId();
  const voice: Voice = request.voice ?? 'persona';
  if (!(VOICES as readonly string[]).includes(voice)) {
    throw new UserError(`voice "${voice}" is not one of ${VOICES.join(', ')}`, {
      code: 'INVALID_ARGUMENT',
      hint: 'pass --voice persona, neutral or strict',
    });
  }
  if (request.engagement !== 'agent' && request.engagement !== 'assistant') {
    throw new UserError(`engagement "${String(request.engagement)}" is not agent or assistant`, {
      code: 'INVALID_ARGUMENT',
      hint: 'pass --engagement agent (run to completion) or assistant (turn-based)',
    });
  }
  if (!request.task || request.task.trim() === '') {
    throw new UserError('the task is empty', {
      code: 'INVALID_ARGUMENT',
      hint: 'pass --task TEXT or --task-file FILE',
    });
  }
  const profile = loadProfileCached(request.persona, { home: context.home, cwd: context.cwd });
  const role = profile.roles.get(request.role);
  if (!role) {
    throw new UserError(`persona "${profile.persona}" does not take role "${request.role}"`, {
      code: 'ROLE_NOT_ALLOWED',
      hint: `pass --role one of: ${[...profile.roles.keys()].join(', ')} (the profile's "roles" in ${profile.file})`,
    });
  }
  let mode: Mode | null = role.mode;
  if (request.mode) {
    if (role.mode && request.mode !== role.mode) {
      throw new UserError(`role ${role.name} is bound to ${role.mode} mode, not ${request.mode}`, {
        code: 'MODE_MISMATCH',
        hint: `drop --mode, or pass --mode ${role.mode}; another mode needs a fresh session in that mode's role`,
      });
    }
    mode = request.mode;
  }
  const surface = canonicalSurface(request.surface);
  const surfaceNames = Object.keys(profile.surfaces);
  if (surfaceNames.length > 0 && !profile.surfaces[surface]) {
    throw new UserError(`persona "${profile.persona}" has no surface "${request.surface}"`, {
      code: 'SURFACE_UNKNOWN',
      hint: `pass --surface one of: ${surfaceNames.join(', ')} (surface_profiles in ${profile.file})`,
    });
  }
  const surfaceProfile = profile.surfaces[surface];

  const meta = {
    session_id: sessionId,
    persona: profile.persona,
    persona_version: profile.version,
    role: role.name,
    mode,
    surface,
    engagement: request.engagement,
    voice,
    started_at: startedAt.toISOString(),
    attempts: 0,
    handoff_inputs: [] as string[],
    tools: [] as string[],
    removed_tools: [] as string[],
    denials: [] as { tool: string; reason: string }[],
    flags: [] as string[],
    acknowledgements: [] as { kind: string; acknowledgement: string }[],
    journal: journalFile(journalDir, startedAt),
  };
  const baseFields = {
    persona: profile.persona,
    role: role.name,
    mode: mode ?? 'none',
    surface,
    engagement: request.engagement,
  };
  const finishMeta = (extra: Partial<InvokeMeta>, substrateMs = 0): InvokeMeta => {
    const total = performance.now() - t0;
    return {
      ...meta,
      ...extra,
      completed_at: new Date().toISOString(),
      timings: {
        total_ms: round(total),
        substrate_ms: round(substrateMs),
        overhead_ms: round(total - substrateMs),
      },
    };
  };
  const refuse = async (reason: RefusalReason, detail: string): Promise<InvokeResult> => {
    await appendJournal(journalDir, [
      {
        kind: 'refusal',
        title: `${reason} (${profile.persona} as ${role.name})`,
        session: sessionId,
        fields: { ...baseFields, reason, detail },
      },
    ]);
    return { status: 'refused', meta: finishMeta({ refusal_reason: reason, detail }), output: null };
  };

  // 1. The override, validated before anything relies on it.
  let override: Override | undefined;
  if (request.override !== undefined && request.override !== null) {
    const raw =
      typeof request.override === 'string'
        ? readOverrideFile(resolve(context.cwd, request.override))
        : request.override;
    const problems = overrideProblems(raw, mode);
    if (problems.length > 0) return refuse('invalid_override', problems.join('; '));
    override = raw as Override;
  }
  const collapsed: readonly Mode[] = override?.modes_collapsed ?? [];

  // 2. A continued session stays in its mode.
  let prior: SessionState | undefined;
  if (request.continue) {
    prior = readSession(ledger, request.continue);
    // Only sessions that yielded the turn keep a state file; any other session is known by its
    // journal start row, which is enough to refuse continuing it into another mode.
    const known = prior ?? sessionFromJournal(journalDir, request.continue);
    if (!known) {
      throw new NotFoundError(
        `no session "${request.continue}" in ${ledger}`,
        'pass --continue the session_id an assistant session returned (and the same --project)',
      );
    }
    if (known.role !== role.name || known.mode !== mode) {
      return refuse(
        'same_session_transition',
        `session ${request.continue} is ${known.role} (${known.mode ?? 'no mode'}); ${role.name} (${mode ?? 'no mode'}) needs a fresh session with an encoded handoff`,
      );
    }
    if (!prior) {
      throw new UserError(`session ${request.continue} is over, not waiting for a turn`, {
        code: 'SESSION_NOT_WAITING',
        hint: 'only an assistant session that asked a question can be continued; start a fresh session instead',
      });
    }
    if (prior.status !== 'yielded') {
      throw new UserError(`session ${prior.id} is ${prior.status}, not waiting for a turn`, {
        code: 'SESSION_NOT_WAITING',
        hint: 'only an assistant session that asked a question can be continued; start a fresh session instead',
      });
    }
  }

  // 3. Engagement against the surface.
  const fixedEngagement = SURFACE_ENGAGEMENT[surface];
  if (fixedEngagement && fixedEngagement !== request.engagement) {
    return refuse('engagement_surface', `surface ${surface} takes engagement ${fixedEngagement} only`);
  }

  // 4. Fresh context and handoffs.
  const inputs = (request.handoffs ?? []).map((ref) =>
    resolveHandoffInput(ref, { ledger, cwd: context.cwd }),
  );
  const records: { record: HandoffRecord; stored: boolean }[] = [];
  for (const input of inputs)
    if (input.type === 'handoff') records.push({ record: input.record, stored: input.stored });
  const acks = inputs.flatMap((input) => (input.type === 'acknowledgement' ? [input.ack] : []));
  const notFound = inputs.flatMap((input) => (input.type === 'not_found' ? [input.ref] : []));
  const freshnessSuspended = collapsed.length > 1 && mode !== null && collapsed.includes(mode);
  if (role.freshness === 'strict' && !freshnessSuspended) {
    const extra = records
      .filter(({ record }) => !role.requires.includes(record.kind))
      .map(({ record }) => `a ${record.kind} handoff (${record.id})`);
    if (request.context && request.context.length > 0)
      extra.push(`${request.context.length} message(s) of prior conversation`);
    if (acks.length > 0) extra.push(`a ${acks[0]!.kind} acknowledgement`);
    if (extra.length > 0) {
      return refuse(
        'validator_extra_context',
        `a ${role.name} takes only the profile, the artifact, its claims and governance; it was also given ${extra.join(', ')}`,
      );
    }
  }
  const access = override
    ? widestAccess([role.access, ...collapsed.map((m) => ROLE_POLICY[MODE_ROLE[m]].access)])
    : role.access;
  if (request.tools && request.tools.length > 0) {
    const forbidden = request.tools.filter((name) => {
      const cls = staticToolClass(name, profile.servers, profile.classify);
      return cls !== undefined && !admits(access, cls);
    });
    if (forbidden.length > 0) return mutatingRefusal(forbidden);
  }
  if (!prior) {
    if (notFound.length > 0) {
      if (role.requires.includes('artifact')) {
        return refuse(
          'no_builder_handoff',
          `no handoff ${notFound.join(', ')} in ${join(ledger, 'handoffs')}: the builder has not produced one`,
        );
      }
      return refuse(
        'missing_handoff',
        `no handoff ${notFound.join(', ')} in ${join(ledger, 'handoffs')} and no such file`,
      );
    }
    const suspended = role.requires.some((kind) => collapsed.includes(PRODUCER_MODE[kind]));
    if (role.requires.length > 0 && !suspended) {
      const matching = records.filter(({ record }) => role.requires.includes(record.kind));
      if (matching.length === 0 && acks.length === 0) {
        return refuse(
          'missing_handoff',
          `${role.name} needs a ${role.requires.join(' or ')} handoff (or a reversion/skip acknowledgement); got ${records.length === 0 ? 'none' : records.map(({ record }) => record.kind).join(', ')}`,
        );
      }
      for (const { record } of matching) {
        const missing = missingFields(record.kind, record.content);
        if (missing.length > 0)
          return refuse(
            'incomplete_handoff',
            `${record.kind} handoff ${record.id} lacks: ${missing.join(', ')}`,
          );
      }
    }
  }

  async function mutatingRefusal(names: readonly string[]): Promise<InvokeResult> {
    return refuse(
      'mutating_tools_for_role',
      `${role!.name} (${access}) may not hold ${names.join(', ')}${override ? ' even under the override' : ''}`,
    );
  }

  // 5. The substrate: the invocation's, else the runtime's, the profile's, the settings' default.
  const settings =
    request.substrate === undefined && context.substrate === undefined && !profile.substrate
      ? settingsOf(context.home)
      : undefined;
  const substrateSpec =
    request.substrate ?? context.substrate ?? profile.substrate ?? settings?.substrates.default;
  if (!substrateSpec) {
    throw new UserError('no substrate to run the session on', {
      code: 'SUBSTRATE_MISSING',
      hint: 'pass --substrate scripted:FILE or a substrate kind',
    });
  }
  const substrate =
    typeof substrateSpec === 'string'
      ? await resolveSubstrate(substrateSpec, {
          cwd: context.cwd,
          env: context.env,
          settings: settings ?? settingsOf(context.home),
        })
      : substrateSpec;
  // A session that may not write, on a substrate running tools itself, runs in its OS sandbox.
  const sandbox = sessionSandbox(substrate, {
    mayWrite: access === 'mutating',
    config: profile.sandbox,
    projectDir: context.project ?? context.cwd,
    scratchDir: join(ledger, 'scratch', sessionId),
  });
  if (sandbox.request) {
    const why = await substrate.sandbox!.unavailable();
    if (why) return refuse('sandbox_unavailable', why);
  }

  // 6. Tools: the servers' catalogs, the role's filter, the lock.
  const serverNames = [...profile.operational, ...profile.taskRelevant];
  let hub: import('../hub/index.js').Hub | undefined;
  const catalog: CatalogTool[] = [];
  try {
    if (serverNames.length > 0) {
      const { Hub } = await import('../hub/index.js');
      const { classifyServerTool, qualifiedName } = await import('./tools.js');
      const { matchToolGlob } = await import('../core/index.js');
      hub = new Hub({ log: context.log, clientName: 'firstlight-runtime' });
      const connections = await Promise.all(
        serverNames.map((name) => {
          const server = profile.servers[name]!;
          return hub!.connect(name, {
            command: server.command,
            args: server.args,
            env: server.env,
            cwd: server.cwd ? resolve(context.cwd, server.cwd) : context.cwd,
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
    const toolSet = computeToolSet({
      access,
      catalog,
      ...(request.tools && request.tools.length > 0 ? { requested: request.tools } : {}),
      classify: profile.classify,
    });
    if (toolSet.forbidden.length > 0) return await mutatingRefusal(toolSet.forbidden.map((f) => f.name));
    if (toolSet.operationalConflicts.length > 0) {
      const names = toolSet.operationalConflicts.map((t) => t.name).join(', ');
      throw new ConfigError(
        `${profile.file}: operational tools ${names} are not read-only, and role ${role.name} may not hold them`,
        {
          code: 'PROFILE_INVALID',
          file: profile.file,
          field: 'mcp_servers.operational',
          hint: 'narrow the server with servers.<name>.tools to its read tools, classify them, or move the server to task_relevant',
        },
      );
    }
    const locked = new Map(toolSet.tools.map((tool) => [tool.name, tool]));
    meta.tools = [...locked.keys()];
    meta.removed_tools = [...toolSet.removed];

    // 7. Journal the start (and the override, and any acknowledged deviation).
    const handoffRecords = records.map(({ record }) => record);
    for (const { record, stored } of records) if (!stored) writeHandoff(ledger, record);
    meta.handoff_inputs = handoffRecords.map((r) => r.id);
    meta.acknowledgements = acks.map((a) => ({ kind: a.kind, acknowledgement: a.acknowledgement }));
    const startEntries: JournalWrite[] = [
      {
        kind: 'session_start',
        title: `${profile.persona} as ${role.name}${mode ? ` in ${mode}` : ''}${prior ? ' (continued)' : ''}`,
        session: sessionId,
        fields: {
          ...baseFields,
          voice,
          handoffs: meta.handoff_inputs.join(',') || undefined,
          tools: meta.tools.join(',') || undefined,
          sandbox: sandbox.journal,
        },
      },
    ];
    for (const ack of acks) {
      startEntries.push({
        kind: 'acknowledgement',
        title: `${ack.kind} into ${mode ?? role.name}`,
        session: sessionId,
        fields: { acknowledgement: ack.acknowledgement, source: ack.source },
      });
    }
    if (override) {
      startEntries.push({
        kind: 'override_start',
        title: `operator collapsed ${override.modes_collapsed.join(' + ')}`,
        session: sessionId,
        fields: { reason: override.reason, acknowledged_risks: override.acknowledged_risks.join(' | ') },
      });
    }
    await appendJournal(journalDir, startEntries);

    // 8. Prompt, attempts.
    const body = await promptBody(profile, context.home);
    const systemPrompt = composeSystemPrompt({
      profile,
      body,
      role,
      mode,
      surface,
      surfaceProfile,
      engagement: request.engagement,
      ...(override ? { collapsed: override.modes_collapsed } : {}),
    });
    const messages: SubstrateMessage[] = prior
      ? [...prior.messages, { role: 'user', content: request.task }]
      : [
          ...(request.context ?? []),
          {
            role: 'user',
            content: composeTaskMessage(request.task, handoffRecords, request.governance ?? []),
          },
        ];
    const denials = meta.denials;
    const executeTool = async (call: ToolCall): Promise<ToolCallResult> => {
      const tool = locked.get(call.name);
      if (!tool) {
        const reason = 'not_in_session_tool_set';
        denials.push({ tool: call.name, reason });
        await appendJournal(journalDir, [
          {
            kind: 'denial',
            title: `${call.name} refused to ${role.name} at execution`,
            session: sessionId,
            fields: {
              ...baseFields,
              tool: call.name,
              reason,
              input: JSON.stringify(call.input ?? {}).slice(0, 200),
            },
          },
        ]);
        return {
          output: `denied: ${call.name} is not in this session's tool set (role ${role.name}, ${access}); the tool set is locked at session start`,
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
        const { resultText } = await import('../hub/index.js');
        return {
          output: resultText(result) || JSON.stringify(result.structuredContent ?? null),
          isError: result.isError === true,
        };
      } catch (error) {
        return { output: `tool call failed: ${(error as Error).message}`, isError: true };
      }
    };
    const controller = new AbortController();
    const wallTimer = profile.budget?.wall_time_ms
      ? setTimeout(() => controller.abort(), profile.budget.wall_time_ms)
      : undefined;
    const budget = {
      maxTurns: profile.budget?.max_turns ?? 20,
      ...(profile.budget?.max_tokens ? { maxTokens: profile.budget.max_tokens } : {}),
      ...(profile.budget?.wall_time_ms ? { wallTimeMs: profile.budget.wall_time_ms } : {}),
    };
    // For substrates that start the servers themselves (agent CLIs); API substrates use executeTool.
    const mcpServers = Object.fromEntries(
      serverNames.map((name) => {
        const server = profile.servers[name]!;
        return [name, { command: server.command, args: server.args, env: server.env }];
      }),
    );
    const produces = role.produces;
    const { attempts, substrateMs, usage, failure, outcome, prose, data, handoffContent, permissionDenials } =
      await runAttempts({
        substrate,
        request: {
          sessionId,
          systemPrompt,
          tools: [...locked.values()].map(({ name, description, inputSchema }) => ({
            name,
            description,
            inputSchema,
          })),
          // An agent CLI starts the servers itself, so their tools outside the set are removed too.
          removedTools: [
            ...toolSet.removed,
            ...catalog.filter((t) => !locked.has(t.name)).map((t) => t.name),
          ],
          mcpServers,
          executeTool,
          budget,
          ...(sandbox.request ? { sandbox: sandbox.request } : {}),
          signal: controller.signal,
          onEvent: request.onEvent ?? (() => {}),
        },
        messages,
        surfaceProfile,
        produces,
        requireHandoff: !override,
        engagement: request.engagement,
        handoffInputs: meta.handoff_inputs,
      });
    if (wallTimer) clearTimeout(wallTimer);
    // An agent CLI's own refusals (it ran the tools, not executeTool): journaled the same way.
    if (permissionDenials.length > 0) {
      for (const denial of permissionDenials)
        meta.denials.push({ tool: denial.tool, reason: denial.reason ?? 'substrate_permission_denial' });
      await appendJournal(
        journalDir,
        permissionDenials.map((denial) => ({
          kind: 'denial' as const,
          title: `${denial.tool} refused to ${role.name} by ${substrate.kind}${denial.reason === SANDBOX_DENIAL ? "'s OS sandbox" : ''}`,
          session: sessionId,
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
    meta.attempts = attempts;

    // 9. Detectors, voice, handoff, journal, session state.
    const findingsInput = handoffRecords.find((r) => r.kind === 'findings')?.content;
    meta.flags = detect({
      mode,
      prose,
      ...(handoffContent ? { handoff: handoffContent } : {}),
      denials: denials.length,
      ...(findingsInput ? { findingsInput } : {}),
    });
    const status: InvokeResult['status'] = failure ? 'failed' : 'completed';
    let handoffId: string | undefined;
    const endEntries: JournalWrite[] = [];
    const voicedHandoff = handoffContent ? applyVoice(handoffContent, voice, 'machine') : undefined;
    if (status === 'completed' && !outcome && produces && voicedHandoff) {
      handoffId = newHandoffId(produces);
      const record: HandoffRecord = {
        id: handoffId,
        kind: produces,
        content: voicedHandoff,
        created: new Date().toISOString(),
        from_session: sessionId,
        from_role: role.name,
        persona: profile.persona,
        journal: `${meta.journal}#${sessionId}`,
        ...(override ? { override_produced: true } : {}),
        inputs: meta.handoff_inputs,
      };
      writeHandoff(ledger, record);
      endEntries.push({
        kind: 'transition',
        title: `${mode ?? role.name} → ${CONSUMER_MODE[produces]} (${produces} handoff ${handoffId})`,
        session: sessionId,
        fields: {
          ...baseFields,
          handoff: handoffId,
          from: meta.handoff_inputs.join(',') || undefined,
          override_produced: override ? true : undefined,
        },
      });
    }
    if (outcome?.type === 'handoff_insufficient') {
      endEntries.push({
        kind: 'handoff_insufficient',
        title: `${role.name} cannot proceed on ${outcome.handoffs.join(', ') || 'its input'}`,
        session: sessionId,
        fields: {
          ...baseFields,
          handoffs: outcome.handoffs.join(','),
          missing: outcome.missing.join(' | '),
          proposed_resolution: outcome.proposed_resolution,
        },
      });
    }
    if (outcome?.type === 'turn_yielded') {
      endEntries.push({
        kind: 'turn_yielded',
        title: `${role.name} asks the caller`,
        session: sessionId,
        fields: { question: outcome.question },
      });
    }
    endEntries.push({
      kind: 'session_end',
      title: `${status}${failure ? ` (${failure.code})` : ''}${outcome ? ` (${outcome.type})` : ''}: ${profile.persona} as ${role.name}`,
      session: sessionId,
      fields: {
        ...baseFields,
        status,
        failure: failure?.code,
        handoff: handoffId,
        flags: meta.flags.join(',') || undefined,
        denials: denials.length || undefined,
        attempts,
      },
    });
    if (override) {
      endEntries.push({
        kind: 'override_end',
        title: `operator collapsed ${override.modes_collapsed.join(' + ')}: ${status}`,
        session: sessionId,
        fields: {
          produced: handoffId,
          tools_used: meta.tools.join(',') || undefined,
          denials: denials.length || undefined,
          flags: meta.flags.join(',') || undefined,
        },
      });
    }
    const state: SessionState = {
      id: sessionId,
      profile: profile.file,
      persona: profile.persona,
      role: role.name,
      mode,
      surface,
      engagement: request.engagement,
      voice,
      status: outcome?.type === 'turn_yielded' ? 'yielded' : status,
      messages,
      tools: meta.tools,
      handoffs: meta.handoff_inputs,
      created: prior?.created ?? startedAt.toISOString(),
      updated: new Date().toISOString(),
    };
    if (state.status === 'yielded' || prior) writeSession(ledger, state);
    await appendJournal(journalDir, endEntries);
    const output: InvokeOutput | null =
      status === 'completed'
        ? {
            text: applyVoice(prose, voice, 'human'),
            ...(data !== undefined ? { data: applyVoice(data, voice, 'machine') } : {}),
            ...(handoffId && voicedHandoff
              ? { handoff: { id: handoffId, kind: produces!, content: voicedHandoff } }
              : {}),
            fields: { text: 'human', data: 'machine', handoff: 'machine' },
            ...(override ? { override_produced: true as const } : {}),
          }
        : null;
    return {
      status,
      meta: finishMeta(
        {
          ...(failure ? { failure_reason: failure.code, detail: failure.detail } : {}),
          substrate: substrate.kind,
          ...(sandbox.meta ? { sandbox: sandbox.meta } : {}),
          ...(handoffId ? { handoff_id: handoffId } : {}),
          ...(override
            ? {
                override: { modes_collapsed: override.modes_collapsed, reason: override.reason },
                override_produced: true,
              }
            : {}),
          usage,
        },
        substrateMs,
      ),
      output,
      ...(outcome ? { outcome } : {}),
    };
  } finally {
    if (hub) await hub.closeAll();
  }
}

/** A session's role and mode from its journal start row (sessions without a state file). */
function sessionFromJournal(dir: string, id: string): { role: string; mode: Mode | null } | undefined {
  const start = readJournal(dir, { type: 'session_start' }).find((entry) => entry.session === id);
  if (!start) return undefined;
  const field = (key: string) => new RegExp(`(?:^|; )${key}=([^;]+)`).exec(start.content)?.[1];
  const mode = field('mode');
  return { role: field('role') ?? '', mode: !mode || mode === 'none' ? null : (mode as Mode) };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** Reads one stored handoff (for consumers doing fan-in). */
export function getHandoff(
  context: Pick<RuntimeContext, 'home' | 'project'>,
  id: string,
): HandoffRecord | undefined {
  return readHandoff(ledgerDir(context), id);
}

export type { Profile, ProfileRole };
