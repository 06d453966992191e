import { UserError } from '../../core/index.js';
import { canonicalSurface, type Mode } from '../policy.js';
import { loadProfileCached } from '../profile.js';
import { VOICES, type Voice } from '../surfaces.js';
import type { InvokeRequest } from '../types.js';
import { type Invocation, ledgerDir, newSessionId, type RuntimeContext } from './invocation.js';

/**
 * Stage 1, resolve the profile: by name in `<home>/personas/`, a path or a `file:` URI; the
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
  const roleName = request.role ?? profile.roleDefault;
  if (!roleName) {
    throw new UserError(`no role asked for, and persona "${profile.persona}" has no role_default`, {
      code: 'ROLE_MISSING',
      hint: `pass --role one of: ${[...profile.roles.keys()].join(', ')} (or set role_default in ${profile.file})`,
    });
  }
  const role = profile.roles.get(roleName);
  if (!role) {
    throw new UserError(`persona "${profile.persona}" does not take role "${roleName}"`, {
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
