import { randomBytes } from 'node:crypto';
import { UserError } from '../../core/index.js';
import type { Hub } from '../../hub/index.js';
import { checkPolicy } from '../pipeline/check-policy.js';
import { composePrompt } from '../pipeline/compose-prompt.js';
import { type RuntimeContext, refuse, sourcesOf } from '../pipeline/invocation.js';
import { journalStart } from '../pipeline/journal-start.js';
import { lockTools } from '../pipeline/lock-tools.js';
import { resolveProfile } from '../pipeline/resolve-profile.js';
import { resolveSessionSubstrate } from '../pipeline/resolve-substrate.js';
import { canonicalSurface } from '../policy.js';
import { loadProfileCached } from '../profile-load.js';
import type { InvokeRequest, InvokeResult } from '../types.js';
import type { ResolvedChannel } from './channels.js';
import { Subscription } from './subscription.js';
import { BACKPRESSURE_POLICIES, RESERVED_EVENTS, type SubscribeRequest } from './types.js';

/**
 * Opens a subscribed session through the pipeline's first six stages, the ones a one_shot
 * invocation runs too: resolve the profile (the `observer` role by default), check the policy,
 * resolve the substrate, start the servers and lock the tools (for the whole subscription),
 * journal the start (`session_type=subscribed`), compose the prompt. A refusal is journaled
 * and returned, as for one_shot; bad usage throws a UserError.
 */

export interface OpenOptions {
  /** Default idle timeout (the request's `idle_timeout_s` wins). */
  readonly idleMs: number;
  /** Emissions kept in memory per subscription (default 256). */
  readonly keep?: number;
}

export const DEFAULT_MAX_PENDING = 100;
/** The most a buffer may hold, whatever the request asks. */
export const MAX_PENDING_LIMIT = 10_000;

export function newSubscriptionId(): string {
  return `sub-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

export async function openSubscription(
  context: RuntimeContext,
  request: SubscribeRequest,
  options: OpenOptions,
): Promise<Subscription | InvokeResult> {
  const policy = request.policy ?? 'coalesce';
  if (!(BACKPRESSURE_POLICIES as readonly string[]).includes(policy)) {
    throw usage(
      `policy "${policy}" is not one of ${BACKPRESSURE_POLICIES.join(', ')}`,
      'pass policy drop_oldest, coalesce or queue',
    );
  }
  if (
    request.engagement !== undefined &&
    request.engagement !== 'agent' &&
    request.engagement !== 'assistant'
  ) {
    throw usage(
      `engagement "${String(request.engagement)}" is not agent or assistant`,
      'pass engagement agent (or leave it out)',
    );
  }
  const maxPending = request.max_pending ?? DEFAULT_MAX_PENDING;
  if (!Number.isInteger(maxPending) || maxPending < 1 || maxPending > MAX_PENDING_LIMIT) {
    throw usage(
      `max_pending must be an integer 1-${MAX_PENDING_LIMIT}`,
      `pass max_pending 100 (at most ${MAX_PENDING_LIMIT})`,
    );
  }
  const channelSpecs =
    request.channels && request.channels.length > 0 ? request.channels : [{ name: 'emission' }];
  const names = new Set<string>();
  for (const channel of channelSpecs) {
    if (
      !/^[A-Za-z][A-Za-z0-9_-]*$/.test(channel.name) ||
      (RESERVED_EVENTS as readonly string[]).includes(channel.name)
    ) {
      throw usage(
        `channel name "${channel.name}" is not allowed`,
        `name channels with letters, digits, _ and - (not ${RESERVED_EVENTS.join(', ')})`,
      );
    }
    if (names.has(channel.name))
      throw usage(`channel "${channel.name}" is named twice`, 'give each channel its own name');
    names.add(channel.name);
    if (channel.select && !/^(text|data|data\.[A-Za-z0-9_-]+)$/.test(channel.select)) {
      throw usage(
        `channels.${channel.name}.select "${channel.select}" is not text, data or data.KEY`,
        'pass select: text, data, or data.KEY',
      );
    }
  }
  const surface = request.surface ?? channelSpecs.find((c) => c.surface)?.surface;
  if (!surface)
    throw usage('no surface for the subscription', 'pass surface (or a surface on its first channel)');

  // The observer role is the subscribed session's own: the default when the profile takes it.
  const profile = loadProfileCached(request.persona, {
    home: context.home,
    cwd: context.cwd,
    sources: sourcesOf(context),
  });
  const role = request.role ?? (profile.roles.has('observer') ? 'observer' : profile.roleDefault);
  const invokeRequest: InvokeRequest = {
    persona: request.persona,
    ...(role ? { role } : {}),
    ...(request.mode ? { mode: request.mode } : {}),
    surface,
    engagement: request.engagement ?? 'agent',
    ...(request.voice ? { voice: request.voice } : {}),
    task: request.task,
    ...(request.tools ? { tools: request.tools } : {}),
    ...(request.servers ? { servers: request.servers } : {}),
    ...(request.governance ? { governance: request.governance } : {}),
    ...(request.substrate ? { substrate: request.substrate } : {}),
  };
  const inv = resolveProfile(context, invokeRequest);
  if (inv.role.produces) {
    throw new UserError(
      `role ${inv.role.name} produces ${inv.role.produces === 'artifact' ? 'an' : 'a'} ${inv.role.produces} handoff; a subscribed session emits over time and hands nothing off`,
      {
        code: 'ROLE_NOT_SUBSCRIBABLE',
        hint: 'subscribe as observer (or general, or a custom role without produces), or run this role as a one_shot invocation',
      },
    );
  }
  const channels: ResolvedChannel[] = channelSpecs.map((spec) => {
    const channelSurface = canonicalSurface(spec.surface ?? surface);
    const profiles = inv.profile.surfaces;
    if (Object.keys(profiles).length > 0 && !profiles[channelSurface]) {
      throw usage(
        `channel ${spec.name}: persona "${inv.profile.persona}" has no surface "${spec.surface}"`,
        `pass a surface of its surface_profiles: ${Object.keys(profiles).join(', ')}`,
      );
    }
    return {
      name: spec.name,
      surface: channelSurface,
      surfaceProfile: profiles[channelSurface],
      voice: spec.voice ?? inv.voice,
      select: spec.select ?? 'text',
    };
  });

  const admission = await checkPolicy(inv);
  if ('status' in admission) return admission;
  // The stream surfaces refused `assistant` above with invoke's own words; on any surface a
  // subscribed session has no caller to yield the turn to.
  if (invokeRequest.engagement !== 'agent') {
    return refuse(
      inv,
      'engagement_surface',
      `a subscribed session takes engagement agent only (it emits over time and has no caller to yield the turn to); surface ${inv.surface} was asked for ${invokeRequest.engagement}`,
    );
  }
  const participants: string[] = [];
  for (const p of request.participants ?? []) {
    const name = typeof p === 'string' ? p : p.name;
    const asked = typeof p === 'string' ? undefined : p.role;
    if (asked && asked !== inv.role.name) {
      return refuse(
        inv,
        'same_session_transition',
        `participant ${name} asks for role ${asked}; the session is ${inv.role.name} (${inv.mode ?? 'no mode'}), and participants share its mode and tools`,
      );
    }
    if (!participants.includes(name)) participants.push(name);
  }
  const resolved = await resolveSessionSubstrate(inv, admission);
  if ('status' in resolved) return resolved;
  let hub: Hub | undefined;
  try {
    const tools = await lockTools(inv, admission, (started) => {
      hub = started;
    });
    if ('status' in tools) {
      await hub?.closeAll();
      return tools;
    }
    const id = newSubscriptionId();
    await journalStart(inv, admission, tools, resolved.sandbox, {
      session_type: 'subscribed',
      subscription: id,
      policy,
      max_pending: String(maxPending),
      channels: channels.map((c) => `${c.name}:${c.surface}/${c.voice}/${c.select}`).join(','),
      participants: participants.join(',') || undefined,
    });
    const composed = await composePrompt(inv, admission, []);
    const subscription = new Subscription({
      id,
      request,
      inv,
      admission,
      tools,
      resolved,
      systemPrompt: composed.systemPrompt,
      channels,
      policy,
      maxPending,
      idleMs: (request.idle_timeout_s ?? options.idleMs / 1000) * 1000,
      participants,
      ...(options.keep ? { keep: options.keep } : {}),
    });
    await inv.ledger.putSubscription(subscription.record());
    return subscription;
  } catch (error) {
    await hub?.closeAll();
    throw error;
  }
}

function usage(message: string, hint: string): UserError {
  return new UserError(message, { code: 'INVALID_ARGUMENT', hint });
}
