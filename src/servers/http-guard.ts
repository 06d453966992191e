/**
 * The HTTP transport's guard: the bind check before listening, and the Host/Origin allowlist and
 * bearer token every request passes (DNS-rebinding and network defence).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import { UserError } from '../core/index.js';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
/** A bearer token shorter than this is guessable; refused at start. */
export const MIN_TOKEN_LENGTH = 16;

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** True for the any-address binds (every interface). */
export function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

/**
 * Checks the bind address and token before anything listens: binding beyond loopback without a
 * token would hand the mind (and its memory) to the network, and a short token is guessable.
 */
export function checkBind(host: string, token: string | undefined): void {
  if (!isLoopback(host) && !token) {
    throw new UserError(`refusing to serve on ${host} without a token`, {
      code: 'TOKEN_REQUIRED',
      hint: 'set FIRSTLIGHT_TOKEN to a long random secret, e.g. FIRSTLIGHT_TOKEN=$(openssl rand -hex 24) (clients then send "Authorization: Bearer <token>"), or bind --host 127.0.0.1',
    });
  }
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    throw new UserError(
      `FIRSTLIGHT_TOKEN is too short: ${token.length} characters, at least ${MIN_TOKEN_LENGTH} required`,
      {
        code: 'TOKEN_TOO_SHORT',
        hint: 'set FIRSTLIGHT_TOKEN to a long random secret, e.g. FIRSTLIGHT_TOKEN=$(openssl rand -hex 24)',
      },
    );
  }
}

/** An address as the host part of a URL or Host header (IPv6 in brackets). */
export function urlHost(address: string): string {
  return address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;
}

/** This machine's interface addresses (link-local IPv6 left out: its Host form needs a zone). */
function interfaceAddresses(): { address: string; internal: boolean; family: string }[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.address.toLowerCase().startsWith('fe80:'))
    .map((a) => ({ address: a!.address.toLowerCase(), internal: a!.internal, family: a!.family }));
}

/** The address to print for a wildcard bind: a real external one when there is one. */
export function reachableAddress(): string {
  const external = interfaceAddresses().filter((a) => !a.internal);
  return (external.find((a) => a.family === 'IPv4') ?? external[0])?.address ?? '127.0.0.1';
}

/**
 * Host header values that name this server (DNS-rebinding defence): the bound address, or for a
 * wildcard bind every interface address; loopback names when loopback can reach it; this
 * machine's hostname off loopback; and the `--allowed-host` names. A page on evil.example that
 * rebinds its name to us still sends `Host: evil.example`, which is in none of these.
 */
export function hostsFor(host: string, port: number, extra: readonly string[]): Set<string> {
  const names: string[] = [];
  if (isLoopback(host) || isWildcard(host)) names.push('127.0.0.1', 'localhost', '[::1]');
  if (isWildcard(host)) names.push(...interfaceAddresses().map((a) => urlHost(a.address)));
  else names.push(urlHost(host.toLowerCase()));
  if (!isLoopback(host)) names.push(hostname().toLowerCase());
  const withPort: string[] = [];
  for (const given of extra.map((n) => n.toLowerCase())) {
    // A bare IPv6 address gets brackets; a proxy's name:port is taken as given.
    if (!given.startsWith('[') && given.split(':').length > 2) names.push(`[${given}]`);
    else if (/:\d+$/.test(given)) withPort.push(given);
    else names.push(given);
  }
  const out = new Set(withPort);
  for (const name of names) {
    out.add(`${name}:${port}`);
    if (port === 80) out.add(name);
  }
  return out;
}

/**
 * Why a request is refused, or undefined when it passes: the Host header must name this server,
 * an Origin (when sent) must be one of ours, and the bearer token must match when one is set.
 */
export function checkRequest(
  req: IncomingMessage,
  allowedHosts: Set<string>,
  token: string | undefined,
): { status: number; message: string } | undefined {
  const host = header(req, 'host')?.toLowerCase();
  if (!host || !allowedHosts.has(host)) {
    return {
      status: 403,
      message: `forbidden: Host header "${host ?? ''}" does not name this server (start it with --allowed-host NAME to accept another name)`,
    };
  }
  const origin = header(req, 'origin');
  if (origin) {
    let originHost: string;
    try {
      originHost = new URL(origin).host.toLowerCase();
    } catch {
      return { status: 403, message: 'forbidden: malformed Origin header' };
    }
    if (!allowedHosts.has(originHost)) {
      return { status: 403, message: `forbidden: Origin "${origin}" is not allowed` };
    }
  }
  if (token !== undefined && !sameSecret(bearerToken(req), token)) {
    return { status: 401, message: 'unauthorized: send "Authorization: Bearer <FIRSTLIGHT_TOKEN>"' };
  }
  return undefined;
}

/** The bearer token a request carries in `Authorization`, or ''. */
export function bearerToken(req: IncomingMessage): string {
  return /^Bearer\s+(.+)$/i.exec(header(req, 'authorization') ?? '')?.[1] ?? '';
}

/** Compares a secret a client sent with ours in constant time (no early exit to time). */
export function sameSecret(given: string, secret: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A request header's value (the first, when repeated). */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
