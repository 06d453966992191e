import { randomBytes } from 'node:crypto';
import type { DeclaredServer, RuntimeSettings } from '../../core/index.js';
import type { Runtime, TaskServer } from '../../runtime/index.js';
import { ApiError } from './errors.js';

/**
 * What a request through the service's doors (HTTP, MCP on HTTP and on stdio) may ask for,
 * beyond what the runtime's policy checks for every caller. The operator at the keyboard
 * (`firstlight invoke`) may declare an override, start any server and read any file; a request
 * from the network, or from the model inside a host, may not:
 *
 * - an **override** only when the service's settings allow it (`runtime.service.allow_override`,
 *   false by default): it is the operator's declaration, not a client's;
 * - **servers** only by the names the settings declare (`runtime.service.servers`): their command
 *   lines come from there, never from a request;
 * - **handoffs** by id only: a path would read a file of the server's;
 * - a **substrate** spec carrying no command line (`command:PROGRAM …`): the settings' own
 *   `command` substrate, by kind, is the operator's.
 *
 * Each is refused before anything starts, with a stable code, and journaled.
 */

export interface DoorPolicy {
  readonly allowOverride: boolean;
  /** The servers a request may name. */
  readonly servers: Readonly<Record<string, DeclaredServer>>;
}

/** The policy of a service, read once from its settings at start. */
export function doorPolicyOf(service: RuntimeSettings['service']): DoorPolicy {
  return { allowOverride: service.allow_override, servers: service.servers };
}

/** A door's request for servers: names, or names with the tools (globs) to use of each. */
export type DoorServers = readonly string[] | Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** What the door checks of a request (an invocation's, or a subscription's). */
export interface DoorRequest {
  readonly persona: string;
  readonly role?: string | undefined;
  readonly override?: unknown;
  readonly handoffs?: readonly string[] | undefined;
  readonly servers?: DoorServers | undefined;
  readonly substrate?: string | undefined;
}

/** Which door a request came through, as the journal row says. */
export type Door = 'http' | 'mcp';

/** A handoff id as the ledger mints them (`artifact-1a2b3c4d`). */
const HANDOFF_ID = /^[a-z][a-z_]*-[0-9a-f]{8,}$/;

/**
 * The request with its servers resolved from the settings, or a refusal (thrown, journaled):
 * OVERRIDE_NOT_ALLOWED, SERVER_NOT_DECLARED, SERVER_COMMAND_NOT_ALLOWED, HANDOFF_ID_REQUIRED,
 * SUBSTRATE_NOT_ALLOWED.
 */
export async function admit<T extends DoorRequest>(
  request: T,
  context: { policy: DoorPolicy; runtime: Runtime; door: Door },
): Promise<Omit<T, 'servers'> & { servers?: Record<string, TaskServer> }> {
  const refusal = refusalOf(request, context.policy);
  if (refusal) {
    await journalRefusal(context.runtime, request, refusal, context.door);
    throw refusal;
  }
  const { servers, ...rest } = request;
  if (servers === undefined) return rest;
  return { ...rest, servers: resolveServers(servers, context.policy) };
}

function refusalOf(request: DoorRequest, policy: DoorPolicy): ApiError | undefined {
  if (request.override !== undefined && request.override !== null && !policy.allowOverride) {
    return new ApiError(
      403,
      'OVERRIDE_NOT_ALLOWED',
      'an operator override is not accepted through the service: it is the operator’s declaration, and this service does not allow one (runtime.service.allow_override is false)',
      'drop `override`, or have the operator run the session at the keyboard (firstlight invoke --override FILE), or start the service with runtime.service.allow_override: true in firstlight.yaml',
    );
  }
  for (const [i, ref] of (request.handoffs ?? []).entries()) {
    if (!HANDOFF_ID.test(ref)) {
      return new ApiError(
        400,
        'HANDOFF_ID_REQUIRED',
        `handoffs[${i}] "${ref.slice(0, 120)}" is not a handoff id: through the service a handoff is an id in the ledger, never a file on the server`,
        'pass the id a session returned (meta.handoff_id, e.g. artifact-1a2b3c4d), or import the file at the keyboard (firstlight invoke --handoff FILE)',
      );
    }
  }
  const names = Object.keys(policy.servers);
  const declared = names.length > 0 ? names.join(', ') : 'none';
  for (const [name, entry] of serverEntries(request.servers)) {
    if (!Object.hasOwn(policy.servers, name)) {
      return new ApiError(
        403,
        'SERVER_NOT_DECLARED',
        `servers.${name}: not a server this service declares (declared: ${declared})`,
        'name a server of runtime.service.servers in firstlight.yaml (the operator declares each with its command), or declare this one there',
        { declared: names },
      );
    }
    const extra = Object.keys(entry).filter((key) => key !== 'tools');
    if (extra.length > 0) {
      return new ApiError(
        403,
        'SERVER_COMMAND_NOT_ALLOWED',
        `servers.${name}.${extra[0]}: a request names a declared server and may choose its tools, never how it starts`,
        `send servers: {"${name}": {"tools": […]}} or ["${name}"]: its command, args, env and cwd are runtime.service.servers.${name}'s`,
        { declared: names },
      );
    }
  }
  if (typeof request.substrate === 'string') {
    const colon = request.substrate.indexOf(':');
    const kind = (colon < 0 ? request.substrate : request.substrate.slice(0, colon)).trim();
    const arg = colon < 0 ? '' : request.substrate.slice(colon + 1).trim();
    if (kind === 'command' && arg !== '') {
      return new ApiError(
        403,
        'SUBSTRATE_NOT_ALLOWED',
        'substrate "command:…" carries a command line: through the service a substrate is named, never a program to run',
        'send substrate: "command" (the settings’ substrates.command.argv) or another kind; the operator may run command:PROGRAM at the keyboard',
      );
    }
  }
  return undefined;
}

function serverEntries(servers: DoorServers | undefined): [string, Readonly<Record<string, unknown>>][] {
  if (servers === undefined) return [];
  if (Array.isArray(servers)) return (servers as readonly string[]).map((name) => [name, {}]);
  return Object.entries(servers as Readonly<Record<string, Readonly<Record<string, unknown>>>>);
}

function resolveServers(servers: DoorServers, policy: DoorPolicy): Record<string, TaskServer> {
  const out: Record<string, TaskServer> = {};
  for (const [name, entry] of serverEntries(servers)) {
    const spec = policy.servers[name]!;
    const tools = entry.tools as readonly string[] | undefined;
    out[name] = {
      command: spec.command,
      args: spec.args,
      ...(spec.env ? { env: spec.env } : {}),
      ...(spec.cwd ? { cwd: spec.cwd } : {}),
      ...(tools ? { tools } : {}),
    };
  }
  return out;
}

/** One `refusal` row for a request the door refused: the code, the door, who was asked for. */
async function journalRefusal(runtime: Runtime, request: DoorRequest, refusal: ApiError, door: Door) {
  const session = `s-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  const override = request.override as { modes_collapsed?: unknown } | undefined;
  await runtime.ledger.appendJournal([
    {
      kind: 'refusal',
      title: `${refusal.code} (${request.persona}${request.role ? ` as ${request.role}` : ''}, through the ${door} door)`,
      session,
      fields: {
        reason: refusal.code.toLowerCase(),
        door,
        persona: request.persona,
        role: request.role,
        detail: refusal.message,
        ...(Array.isArray(override?.modes_collapsed)
          ? { modes_collapsed: override.modes_collapsed.join(',') }
          : {}),
      },
    },
  ]);
}
