import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { UiGuard } from '../../../src/ui/guard.js';

const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
const TOKEN = 'guard-test-token-0123456789abcdef';

describe('UiGuard', () => {
  const guard = new UiGuard(undefined);
  guard.allowedHosts = new Set(['127.0.0.1:7823', 'localhost:7823']);
  const ours = { host: '127.0.0.1:7823', origin: 'http://127.0.0.1:7823' };
  const withToken = (csrf: string) => new URLSearchParams({ _csrf: csrf });

  it('accepts its own Host and Origin, and refuses any other', () => {
    expect(guard.checkHost(req(ours))).toBeUndefined();
    expect(guard.checkHost(req({ host: 'evil.example:7823' }))?.status).toBe(403);
    expect(guard.checkHost(req({ ...ours, origin: 'http://evil.example' }))?.status).toBe(403);
  });

  it('takes a write only from a same-origin request carrying the form token', () => {
    expect(guard.checkWrite(req(ours), withToken(guard.csrf))).toBeUndefined();
    expect(
      guard.checkWrite(req({ host: ours.host, 'sec-fetch-site': 'same-origin' }), withToken(guard.csrf)),
    ).toBeUndefined();
    expect(guard.checkWrite(req({ host: ours.host }), withToken(guard.csrf))?.status).toBe(403);
    expect(
      guard.checkWrite(req({ ...ours, 'sec-fetch-site': 'cross-site' }), withToken(guard.csrf))?.status,
    ).toBe(403);
    expect(guard.checkWrite(req(ours), withToken(''))?.status).toBe(403);
    expect(guard.checkWrite(req(ours), withToken(`${guard.csrf}0`))?.status).toBe(403);
    expect(
      guard.checkWrite(req({ ...ours, 'x-firstlight-csrf': guard.csrf }), new URLSearchParams()),
    ).toBeUndefined();
  });

  it('with a token, lets in its bearer or the sign-in cookie, never the token in a cookie', () => {
    const locked = new UiGuard(TOKEN);
    expect(locked.checkToken(req({}))?.status).toBe(401);
    expect(locked.checkToken(req({ authorization: `Bearer ${TOKEN}` }))).toBeUndefined();
    expect(locked.signIn('wrong')).toBeUndefined();
    const cookie = locked.signIn(TOKEN)!;
    expect(cookie).toMatch(/HttpOnly; SameSite=Strict; Path=\/$/);
    expect(cookie).not.toContain(TOKEN);
    const value = cookie.split(';')[0]!;
    expect(locked.checkToken(req({ cookie: `other=1; ${value}` }))).toBeUndefined();
    expect(locked.checkToken(req({ cookie: `firstlight_ui=${TOKEN}` }))?.status).toBe(401);
    expect(new UiGuard(undefined).checkToken(req({}))).toBeUndefined();
  });
});
