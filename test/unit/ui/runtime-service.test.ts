import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/core/index.js';
import { serviceStatus } from '../../../src/ui/runtime-service.js';
import { ServiceWatch } from '../../../src/ui/runtime-watch.js';
import { waitFor } from '../../helpers/index.js';

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

  it('reads each field it knows, sends the token, and ignores what it does not know', async () => {
    let auth: string | undefined;
    const { url, server } = await service((a) => {
      auth = a;
      return {
        status: 200,
        body: JSON.stringify({
          subscriptions: [
            {
              id: 'sub-1',
              session: 's-1',
              persona: 'oddie',
              role: 'observer',
              policy: 'coalesce',
              surface: 'real-time-stream',
              max_pending: 100,
              channels: ['captions', 7],
              participants: ['ann'],
              state: 'open',
              counts: { received: 10, interpreted: 4, coalesced: 6, note: 'x' },
              last_seq: 8,
              created: '2026-11-28T03:00:00.000Z',
              a_field_of_a_later_version: true,
            },
            { persona: 'no id: skipped' },
          ],
        }),
      };
    });
    servers.push(server);
    const status = await serviceStatus(url, 'a-token');
    expect(auth).toBe('Bearer a-token');
    expect(status).toMatchObject({
      kind: 'ok',
      url: url.replace(/\/$/, ''),
      subscriptions: [
        {
          id: 'sub-1',
          session: 's-1',
          persona: 'oddie',
          role: 'observer',
          policy: 'coalesce',
          surface: 'real-time-stream',
          maxPending: 100,
          channels: ['captions'],
          participants: ['ann'],
          state: 'open',
          // Every count the view shows is there; one the service did not send is 0.
          counts: {
            received: 10,
            interpreted: 4,
            dropped: 0,
            coalesced: 6,
            rejected: 0,
            queued: 0,
            emitted: 0,
          },
          lastSeq: 8,
          created: '2026-11-28T03:00:00.000Z',
        },
      ],
    });
  });

  it('says when nothing is configured, nothing answers, or the answer is no listing', async () => {
    expect(await serviceStatus(undefined, undefined)).toEqual({ kind: 'unconfigured' });
    const { url, server } = await service(() => ({
      status: 403,
      body: '{"error":{"code":"FORBIDDEN","message":"Host not allowed","fix":"use --allowed-host"}}',
    }));
    servers.push(server);
    expect(await serviceStatus(url, undefined)).toMatchObject({
      kind: 'refused',
      status: 403,
      code: 'FORBIDDEN',
      message: 'Host not allowed',
      fix: 'use --allowed-host',
    });
    await new Promise((r) => server.close(r));
    servers.pop();
    const down = await serviceStatus(url, undefined);
    expect(down).toMatchObject({ kind: 'unreachable' });
    expect(down.kind === 'unreachable' && down.why).toContain('ECONNREFUSED');
  });

  it('tells the pages when the listing changes, at once when a page connects, and stops asking when none looks', async () => {
    let received = 1;
    let asked = 0;
    const { url, server } = await service(() => {
      asked++;
      return {
        status: 200,
        body: JSON.stringify({ subscriptions: [{ id: 'sub-1', counts: { received } }] }),
      };
    });
    servers.push(server);
    const told: number[] = [];
    const watch = new ServiceWatch({
      url,
      token: undefined,
      intervalMs: 10,
      log: createLogger('test'),
      onChange: (status) =>
        told.push(status.kind === 'ok' ? (status.subscriptions[0]?.counts.received ?? -1) : -1),
    });
    watch.wake();
    await waitFor('the first answer told', () => told.length === 1);
    const before = asked;
    await waitFor('a few more polls', () => asked >= before + 3);
    expect(told).toEqual([1]); // nothing changed, nothing told
    received = 2;
    await waitFor('the change told', () => told.length === 2);
    expect(told).toEqual([1, 2]);
    watch.wake(); // another page connects: told again, though nothing changed
    await waitFor('the new page told', () => told.length === 3);
    watch.sleep();
    const stopped = asked;
    received = 3;
    // Stopped: a poll that was under way may finish, none starts after it.
    await new Promise((r) => server.close(r));
    servers.pop();
    expect(asked - stopped).toBeLessThanOrEqual(1);
    expect(told).toEqual([1, 2, 2]);
  });
});
