/**
 * HTTP exposure: the Host check (DNS rebinding), the Origin check, the token, and the refusal
 * to bind beyond loopback without one.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleHomeCopy, startHttpServer } from '../helpers/index.js';
import { cli } from './helpers.js';

const TOKEN = 'r-suite-token-0123456789abcdef0123456789';
const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'r', version: '0' } },
});

let home: { dir: string; dispose: () => void };
let server: Awaited<ReturnType<typeof startHttpServer>>;
beforeAll(async () => {
  home = exampleHomeCopy();
  server = await startHttpServer(['--home', home.dir], { FIRSTLIGHT_TOKEN: TOKEN });
});
afterAll(async () => {
  await server.stop();
  home.dispose();
});

/** A POST with exactly these headers (fetch would not let a test set Host). */
function post(headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          host: url.host,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${TOKEN}`,
          ...headers,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(INIT);
  });
}

describe('HTTP exposure', () => {
  it('control: the right Host, no Origin, the token: served', async () => {
    expect((await post({})).status).toBe(200);
  });

  it('a foreign Host header (DNS rebinding) is refused', async () => {
    const out = await post({ host: 'evil.example:80' });
    expect(out.status).toBe(403);
    expect(out.body).toMatch(/Host header/);
  });

  it('a foreign Origin is refused, and a malformed one', async () => {
    expect((await post({ origin: 'https://evil.example' })).status).toBe(403);
    expect((await post({ origin: 'not a url' })).status).toBe(403);
  });

  it('a missing or wrong token is refused', async () => {
    expect((await post({ authorization: '' })).status).toBe(401);
    expect((await post({ authorization: `Bearer ${TOKEN.slice(0, -1)}x` })).status).toBe(401);
  });

  it('binding beyond loopback without a token is refused with exit 2', async () => {
    const out = await cli(['serve', '--http', '--host', '0.0.0.0', '--port', '0', '--home', home.dir], {
      env: { FIRSTLIGHT_TOKEN: '' },
      timeoutMs: 15_000,
    });
    expect(out.status).toBe(2);
    expect(out.stderr).toMatch(/without a token/);
  });
});
