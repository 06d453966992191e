/**
 * Who may read and who may write. Every request passes the HTTP servers' own Host/Origin check
 * (DNS-rebinding defence, servers' http-guard); with a token (mandatory off loopback, as for
 * `serve --http`) it must carry it: `Authorization: Bearer`, or the session cookie the sign-in
 * form sets for a browser. A write (POST) must also come from this page: a same-origin request
 * (its Origin one of ours, or Sec-Fetch-Site same-origin; a request with neither is refused, so a
 * script or another site cannot post) carrying the page's form token.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { bearerToken, checkRequest, header, sameSecret } from '../servers/index.js';

export interface Refusal {
  status: number;
  message: string;
}

const COOKIE = 'firstlight_ui';

export class UiGuard {
  /** Host header values that name this server; set once the server listens. */
  allowedHosts = new Set<string>();
  /** The form token every write carries (a hidden field, or the x-firstlight-csrf header). */
  readonly csrf: string;
  private readonly token: string | undefined;
  private readonly session: string | undefined;

  constructor(token: string | undefined) {
    this.token = token;
    this.csrf = randomBytes(24).toString('hex');
    // The cookie holds a value derived from the token, never the token itself.
    this.session = token
      ? createHmac('sha256', token).update('firstlight ui session').digest('hex')
      : undefined;
  }

  get needsToken(): boolean {
    return this.token !== undefined;
  }

  /** Host and Origin name this server. */
  checkHost(req: IncomingMessage): Refusal | undefined {
    return checkRequest(req, this.allowedHosts, undefined);
  }

  /** The token, when one is set: in `Authorization`, or the sign-in cookie. */
  checkToken(req: IncomingMessage): Refusal | undefined {
    if (!this.token || !this.session) return undefined;
    if (sameSecret(bearerToken(req), this.token)) return undefined;
    if (sameSecret(cookie(req, COOKIE) ?? '', this.session)) return undefined;
    return {
      status: 401,
      message:
        'unauthorized: sign in with FIRSTLIGHT_TOKEN (the form at /login), or send "Authorization: Bearer <FIRSTLIGHT_TOKEN>"',
    };
  }

  /** The request came from a page of this server (not another site, not a bare script). */
  checkSameOrigin(req: IncomingMessage): Refusal | undefined {
    const site = header(req, 'sec-fetch-site');
    if (site !== undefined && site !== 'same-origin') {
      return { status: 403, message: `forbidden: a ${site} request cannot change anything here` };
    }
    // checkHost already refused an Origin that is not ours; here one must be present.
    if (header(req, 'origin') === undefined && site === undefined) {
      return {
        status: 403,
        message:
          'forbidden: a write must come from the page itself (a same-origin request with an Origin header)',
      };
    }
    return undefined;
  }

  /** A write: same-origin and carrying the page's form token. */
  checkWrite(req: IncomingMessage, form: URLSearchParams): Refusal | undefined {
    const origin = this.checkSameOrigin(req);
    if (origin) return origin;
    const given = form.get('_csrf') ?? header(req, 'x-firstlight-csrf') ?? '';
    if (!sameSecret(given, this.csrf)) {
      return {
        status: 403,
        message: 'forbidden: the form token is missing or stale: reload the page and try again',
      };
    }
    return undefined;
  }

  /** Checks a signed-in token; the Set-Cookie value when it matches. */
  signIn(given: string): string | undefined {
    if (!this.token || !this.session || !sameSecret(given, this.token)) return undefined;
    return `${COOKIE}=${this.session}; HttpOnly; SameSite=Strict; Path=/`;
  }
}

function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of (header(req, 'cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
