import { UserError } from '../../core/index.js';
import { canonicalSurface, type Mode } from '../policy.js';
import type { Profile } from '../profile.js';
import { loadProfileCached } from '../profile-load.js';
import { VOICES, type Voice } from '../surfaces.js';
import type { InvokeRequest, TaskServer } from '../types.js';
import { type Invocation, ledgerDir, newSessionId, type RuntimeContext, sourcesOf } from './invocation.js';

/**
 * Stage 1, resolve the profile: by name (pinned `NAME@N`) in `<home>/personas/` and the
 * configured sources, a path, a `file:` URI or a URI a source maps; the
 * role (the profile's `role_default` when none is asked for), the mode and the surface checked
 * against it. Mistakes here are bad usage (a UserError, exit 2): nothing is journaled.
 */
export function resolveProfile(context: RuntimeContext, request: InvokeRequest): Invocation {
  const t0 = performance.now();
  const startedAt = new Date();
  const voice: Voice = request.voice ?? 'persona';
  if (!(VOICES as readonly string[]).includes(voice)) {
    throw new UserError(`voice "${voice}" is not one of ${VOICES.join(', ')}`, {
      code: 'INVALID_ARGUMENT',
      hint: 'set voice to persona, neutral or strict',
    });
  }
  if (request.engagement !== 'agent' && request.engagement !== 'assistant') {
    throw new UserError(`engagement "${String(request.engagement)}" is not agent or assistant`, {
      code: 'INVALID_ARGUMENT',
      hint: 'set engagement to agent (run to completion) or assistant (turn-based)',
    });
  }
  if (!request.task || request.task.trim() === '') {
    throw new UserError('the task is empty', {
      code: 'INVALID_ARGUMENT',
      hint: 'give the task: what the session should do, as text',
    });
  }
  const profile = withTaskServers(
    loadProfileCached(request.persona, { home: context.home, cwd: context.cwd, sources: sourcesOf(context) }),
    request.servers,
  );
  const roleName = request.role ?? profile.roleDefault;
  if (!roleName) {
    throw new UserError(`no role asked for, and persona "${profile.persona}" has no role_default`, {
      code: 'ROLE_MISSING',
      hint: `set role to one of: ${[...profile.roles.keys()].join(', ')} (or set role_default in ${profile.file})`,
    });
  }
  const role = profile.roles.get(roleName);
  if (!role) {
    throw new UserError(`persona "${profile.persona}" does not take role "${roleName}"`, {
      code: 'ROLE_NOT_ALLOWED',
      hint: `set role to one of: ${[...profile.roles.keys()].join(', ')} (the profile's "roles" in ${profile.file})`,
    });
  }
  let mode: Mode | null = role.mode;
  if (request.mode) {
    if (role.mode && request.mode !== role.mode) {
      throw new UserError(`role ${role.name} is bound to ${role.mode} mode, not ${request.mode}`, {
        code: 'MODE_MISMATCH',
        hint: `leave mode out, or set it to ${role.mode}; another mode needs a fresh session in that mode's role`,
      });
    }
    mode = request.mode;
  }
  const surface = canonicalSurface(request.surface);
  const surfaceNames = Object.keys(profile.surfaces);
  if (surfaceNames.length > 0 && !profile.surfaces[surface]) {
    throw new UserError(`persona "${profile.persona}" has no surface "${request.surface}"`, {
      code: 'SURFACE_UNKNOWN',
      hint: `set surface to one of: ${surfaceNames.join(', ')} (surface_profiles in ${profile.file})`,
    });
  }
  const sessionId = newSessionId();
  return {
    context,
    request,
    t0,
    startedAt,
    ledger: context.ledger,
    dataDir: ledgerDir(context),
    profile,
    role,
    mode,
    surface,
    surfaceProfile: profile.surfaces[surface],
    voice,
    baseFields: {
      persona: profile.persona,
      role: role.name,
      mode: mode ?? 'none',
      surface,
      engagement: request.engagement,
    },
    meta: {
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
      handoff_inputs: [],
      tools: [],
      removed_tools: [],
      denials: [],
      flags: [],
      acknowledgements: [],
      journal: context.ledger.journalRef(sessionId, startedAt),
    },
  };
}

const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * The profile with the invocation's task-relevant servers added (a copy: the cached profile is
 * shared). Each takes the profile's rule for a server of its name (`servers.NAME` without a
 * command: access, classify, trust_read_only_hint, tools); a name the profile already runs is
 * bad usage.
 */
export function withTaskServers(
  profile: Profile,
  servers: Readonly<Record<string, TaskServer>> | undefined,
): Profile {
  const names = Object.keys(servers ?? {});
  if (!servers || names.length === 0) return profile;
  const merged = { ...profile.servers };
  for (const name of names) {
    const given = servers[name]!;
    const rule = profile.servers[name];
    if (!SERVER_NAME.test(name)) {
      throw new UserError(`servers.${name}: a server name is letters, digits, _ and - only`, {
        code: 'INVALID_ARGUMENT',
        hint: 'name the server like github or files (its tools are named NAME__tool)',
      });
    }
    if (rule?.command) {
      throw new UserError(`servers.${name}: persona "${profile.persona}" already runs a server "${name}"`, {
        code: 'INVALID_ARGUMENT',
        hint: `give the task's server another name (the profile's own is in ${profile.file})`,
      });
    }
    if (!given.command) {
      throw new UserError(`servers.${name}: no command`, {
        code: 'INVALID_ARGUMENT',
        hint: 'give the command that starts the MCP server: {"command": "npx", "args": ["-y", "@scope/server"]}',
      });
    }
    merged[name] = {
      trust_read_only_hint: false,
      classify: {},
      ...rule,
      command: given.command,
      args: [...(given.args ?? [])],
      env: { ...(given.env ?? {}) },
      ...(given.cwd ? { cwd: given.cwd } : {}),
      // The profile's rule on which tools to use wins; else the request's.
      ...(given.tools || rule?.tools ? { tools: [...(rule?.tools ?? given.tools ?? [])] } : {}),
    };
  }
  return {
    ...profile,
    servers: merged,
    taskRelevant: [...profile.taskRelevant, ...names.filter((n) => !profile.taskRelevant.includes(n))],
  };
}

/** `--server NAME=COMMAND` values as task servers (the command line split on spaces). */
export function parseTaskServers(values: readonly string[]): Record<string, TaskServer> {
  const servers: Record<string, TaskServer> = {};
  for (const value of values) {
    const eq = value.indexOf('=');
    const name = eq > 0 ? value.slice(0, eq).trim() : '';
    const argv =
      eq > 0
        ? value
            .slice(eq + 1)
            .trim()
            .split(/\s+/)
            .filter(Boolean)
        : [];
    if (!name || argv.length === 0) {
      throw new UserError(`--server "${value}" is not NAME=COMMAND`, {
        code: 'INVALID_ARGUMENT',
        hint: 'pass --server github="npx -y @scope/github-mcp" (the command line is split on spaces)',
      });
    }
    servers[name] = { command: argv[0]!, args: argv.slice(1) };
  }
  return servers;
}
