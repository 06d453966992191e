import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { serviceStatus } from '../../../src/ui/runtime-service.js';

/** A stand-in runtime service on loopback answering GET /v1/subscriptions as told. */
function service(
  answer: (auth: string | undefined) => { status: number; body: string },
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const { status, body } =
      req.url === '/v1/subscriptions' ? answer(req.headers.authorization) : { status: 404, body: '{}' };
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server }),
    ),
  );
}

describe('the runtime service as the Runtime view asks it', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
  });

  it('lists the live subscriptions with their counts, sending the token', async () => {
    let auth: string | undefined;
    const { url, server } = await service((a) => {
      auth = a;
      return {
        status: 200,
        body: JSON.stringify({
          subscriptions: [
            {
              id: 'sub-1',
              persona: 'oddie',
              policy: 'coalesce',
              state: 'open',
              counts: { received: 10, interpreted: 4, coalesced: 6, note: 'x' },
            },
            { persona: 'no id: skipped' },
          ],
        }),
      };
    });
    servers.push(server);
    const status = await serviceStatus(url, 'a-token');
    expect(auth).toBe('Bearer a-token');
    expect(status).toEqual({
      kind: 'ok',
      url: url.replace(/\/$/, ''),
      subscriptions: [
        {
          id: 'sub-1',
          persona: 'oddie',
          policy: 'coalesce',
          state: 'open',
          counts: { received: 10, interpreted: 4, coalesced: 6 },
        },
      ],
    });
  });

  it('says when nothing is configured, nothing answers, or the service has no listing', async () => {
    expect(await serviceStatus(undefined, undefined)).toEqual({ kind: 'unconfigured' });
    const { url, server } = await service(() => ({ status: 404, body: '{"error":{}}' }));
    servers.push(server);
    expect(await serviceStatus(url, undefined)).toMatchObject({ kind: 'no-listing', status: 404 });
    await new Promise((r) => server.close(r));
    servers.pop();
    expect(await serviceStatus(url, undefined)).toMatchObject({ kind: 'unreachable', why: 'ECONNREFUSED' });
  });
});
