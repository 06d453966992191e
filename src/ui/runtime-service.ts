/**
 * The runtime service (`firstlight runtime serve`), asked for its live subscriptions when the UI
 * was given its URL (`--runtime URL`). The Runtime view shows what this returns; everything about
 * the wire lives here, so the view never changes when the service's listing grows fields.
 */

/** One subscribed session as the service lists it; counts are what its backpressure policy did. */
export interface Subscription {
  id: string;
  persona?: string;
  policy?: string;
  state?: string;
  counts: Record<string, number>;
}

export type ServiceStatus =
  | { kind: 'unconfigured' }
  | { kind: 'unreachable'; url: string; why: string }
  | { kind: 'no-listing'; url: string; status: number }
  | { kind: 'ok'; url: string; subscriptions: Subscription[] };

/** The listing's path on the service. */
export const SUBSCRIPTIONS_PATH = '/v1/subscriptions';
const TIMEOUT_MS = 1500;

/**
 * `GET <url>/v1/subscriptions` → `{subscriptions: [{id, persona?, policy?, state?, counts?}]}`
 * (counts such as received, interpreted, dropped, coalesced, queued). Never throws: a service
 * that is down or answers otherwise is a status the view explains.
 */
export async function serviceStatus(
  url: string | undefined,
  token: string | undefined,
): Promise<ServiceStatus> {
  if (!url) return { kind: 'unconfigured' };
  const base = url.replace(/\/+$/, '');
  let response: Response;
  try {
    response = await fetch(`${base}${SUBSCRIPTIONS_PATH}`, {
      headers: { accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { kind: 'unreachable', url: base, why: cause ?? (error as Error).message };
  }
  if (!response.ok) {
    await response.body?.cancel();
    return { kind: 'no-listing', url: base, status: response.status };
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return { kind: 'no-listing', url: base, status: response.status };
  }
  const list = (body as { subscriptions?: unknown })?.subscriptions;
  if (!Array.isArray(list)) return { kind: 'no-listing', url: base, status: response.status };
  return { kind: 'ok', url: base, subscriptions: list.flatMap(subscriptionOf) };
}

function subscriptionOf(value: unknown): Subscription[] {
  if (!value || typeof value !== 'object') return [];
  const v = value as Record<string, unknown>;
  if (typeof v.id !== 'string') return [];
  const counts: Record<string, number> = {};
  if (v.counts && typeof v.counts === 'object')
    for (const [k, n] of Object.entries(v.counts)) if (typeof n === 'number') counts[k] = n;
  return [
    {
      id: v.id,
      ...(typeof v.persona === 'string' ? { persona: v.persona } : {}),
      ...(typeof v.policy === 'string' ? { policy: v.policy } : {}),
      ...(typeof v.state === 'string' ? { state: v.state } : {}),
      counts,
    },
  ];
}
