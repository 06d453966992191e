/**
 * The runtime service (`firstlight runtime serve`), asked for its live subscriptions when the UI
 * was given its URL (`--runtime URL`): `GET URL/v1/subscriptions`. Everything about the wire
 * lives here. The answer is read field by field (never trusted whole): a service of another
 * version that adds fields changes nothing, one that lacks a field shows it empty.
 */

/** The counts a subscription's backpressure policy keeps, in the order the view shows them. */
export const COUNT_NAMES = [
  'received',
  'interpreted',
  'dropped',
  'coalesced',
  'rejected',
  'queued',
  'emitted',
] as const;
export type CountName = (typeof COUNT_NAMES)[number];

/** The counts that say events were not interpreted one by one: backpressure at work. */
export const BACKPRESSURE_COUNTS: readonly CountName[] = ['dropped', 'coalesced', 'rejected'];

/** One subscribed session as the service lists it. */
export interface LiveSubscription {
  id: string;
  /** The session it runs as: its journal rows carry it. */
  session: string;
  persona: string;
  role: string;
  policy: string;
  surface: string;
  /** Undefined when the service does not say. */
  maxPending: number | undefined;
  channels: string[];
  participants: string[];
  state: string;
  counts: Record<CountName, number>;
  /** The last emission's number on its stream. */
  lastSeq: number;
  created: string | undefined;
}

export type ServiceStatus =
  | { kind: 'unconfigured' }
  /** Nothing answered: `why` is the network's reason (ECONNREFUSED, a timeout, …). */
  | { kind: 'unreachable'; url: string; why: string; at: Date }
  /** Something answered, but not with a listing: its status and, from a runtime service, its error. */
  | { kind: 'refused'; url: string; status: number; code: string; message: string; fix: string; at: Date }
  | { kind: 'ok'; url: string; subscriptions: LiveSubscription[]; at: Date };

/** The listing's path on the service. */
export const SUBSCRIPTIONS_PATH = '/v1/subscriptions';
/** A loopback service answers in milliseconds; past this it is as good as down for a live view. */
const TIMEOUT_MS = 2000;

/** Never throws: a service that is down or answers otherwise is a status the view explains. */
export async function serviceStatus(
  url: string | undefined,
  token: string | undefined,
  now: () => Date = () => new Date(),
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
    return { kind: 'unreachable', url: base, why: networkReason(error), at: now() };
  }
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const list = (body as { subscriptions?: unknown } | undefined)?.subscriptions;
  if (response.ok && Array.isArray(list))
    return { kind: 'ok', url: base, subscriptions: list.flatMap(subscriptionOf), at: now() };
  const error = (body as { error?: Record<string, unknown> } | undefined)?.error;
  return {
    kind: 'refused',
    url: base,
    status: response.status,
    code:
      typeof error?.code === 'string'
        ? error.code
        : response.ok
          ? 'NOT_A_LISTING'
          : `HTTP_${response.status}`,
    message:
      typeof error?.message === 'string'
        ? error.message
        : response.ok
          ? `GET ${SUBSCRIPTIONS_PATH} answered no {subscriptions: [...]}`
          : `GET ${SUBSCRIPTIONS_PATH} answered ${response.status} ${response.statusText}`.trim(),
    fix:
      response.status === 401
        ? 'the service wants its token: start the page with the --home the service runs on (its token is kept in <home>/run/), or with FIRSTLIGHT_RUNTIME_TOKEN set to it'
        : typeof error?.fix === 'string'
          ? error.fix
          : 'check that --runtime names a firstlight runtime service (firstlight runtime serve prints its URL)',
    at: now(),
  };
}

/** Why a fetch found nothing to talk to, in the network's own words (ECONNREFUSED …). */
function networkReason(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError') return `no answer within ${TIMEOUT_MS / 1000} s`;
  const cause = e.cause;
  if (cause?.message && cause.code && !cause.message.includes(cause.code))
    return `${cause.code}: ${cause.message}`;
  return cause?.message ?? cause?.code ?? e.message ?? String(error);
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function subscriptionOf(value: unknown): LiveSubscription[] {
  if (!value || typeof value !== 'object') return [];
  const v = value as Record<string, unknown>;
  if (typeof v.id !== 'string') return [];
  const raw = (v.counts && typeof v.counts === 'object' ? v.counts : {}) as Record<string, unknown>;
  const counts = Object.fromEntries(COUNT_NAMES.map((name) => [name, num(raw[name]) ?? 0])) as Record<
    CountName,
    number
  >;
  return [
    {
      id: v.id,
      session: str(v.session),
      persona: str(v.persona),
      role: str(v.role),
      policy: str(v.policy),
      surface: str(v.surface),
      maxPending: num(v.max_pending),
      channels: strings(v.channels),
      participants: strings(v.participants),
      state: str(v.state),
      counts,
      lastSeq: num(v.last_seq) ?? 0,
      created: typeof v.created === 'string' ? v.created : undefined,
    },
  ];
}

/** What decides whether an open page must be told: everything shown but the time it was asked. */
export function statusFingerprint(status: ServiceStatus): string {
  if (status.kind === 'unconfigured') return 'unconfigured';
  const { at: _at, ...rest } = status;
  return JSON.stringify(rest);
}
