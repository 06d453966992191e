import { createServer } from 'node:net';
import { RuntimeClient } from 'firstlight/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type LiveSubscription, serviceStatus } from '../../src/ui/runtime-service.js';
import { waitFor } from '../helpers/index.js';
import { type RuntimeFixture, runtimeFixture } from './runtime-fixture.js';
import { type RunningService, startService } from './runtime-service-fixture.js';
import { type RunningUiProcess, startUi } from './ui-fixture.js';
import { type EventReader, readEvents } from './ui-sse-reader.js';

/**
 * The UI's reader of the runtime service against a real `firstlight runtime serve` (with the
 * token it generated, which `firstlight ui --home` finds in the home's run/): the listing's real shape read field by field, a missing token and a dead address each
 * explained, the listing's query validated; and `firstlight ui --runtime URL` over HTTP, telling
 * an open Runtime page when the counts change (server-sent events) with nothing written to disk.
 */

/** A port nothing listens on: taken from the system, then let go. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the UI and the runtime service', { timeout: 180_000 }, () => {
  let fx: RuntimeFixture;
  let service: RunningService;
  let client: RuntimeClient;
  let ui: RunningUiProcess;
  let sub: { id: string; session: string };
  let TOKEN: string;

  beforeAll(async () => {
    fx = runtimeFixture();
    service = await startService(['--home', fx.home, '--project', fx.project], { FIRSTLIGHT_TOKEN: '' });
    TOKEN = service.token!;
    client = new RuntimeClient({ url: service.url, home: fx.home });
    // Interpretations slower than the events come: the buffer of 3 overflows and drops.
    const slow = fx.file('slow.yaml', stringify({ steps: [{ delay_ms: 300, text: 'The stream moved.' }] }));
    sub = await client.subscribe({
      persona: 'team',
      surface: 'real-time-stream',
      task: 'Say what the stream shows, in a line.',
      policy: 'drop_oldest',
      max_pending: 3,
      channels: [{ name: 'captions' }],
      substrate: `scripted:${slow}`,
    });
    await client.send(
      sub.id,
      Array.from({ length: 20 }, (_, i) => ({ participant: 'ann', text: `tick ${i}` })),
    );
    // No token given: the page finds the one the service keeps in the home.
    ui = await startUi(['--home', fx.home, '--project', fx.project, '--runtime', service.url], {
      FIRSTLIGHT_TOKEN: '',
    });
  }, 120_000);

  afterAll(async () => {
    await ui?.stop();
    await service?.stop();
    fx?.dispose();
  });

  it('reads the listing of a real service: every field, the counts backpressure kept', async () => {
    const status = await serviceStatus(service.url, TOKEN);
    expect(status.kind).toBe('ok');
    const listed = (status as { subscriptions: LiveSubscription[] }).subscriptions;
    expect(listed).toHaveLength(1);
    const [live] = listed as [LiveSubscription];
    expect(live).toMatchObject({
      id: sub.id,
      session: sub.session,
      persona: 'team',
      role: 'observer',
      policy: 'drop_oldest',
      surface: 'real-time-stream',
      maxPending: 3,
      channels: ['captions'],
      participants: ['ann'],
      state: 'open',
    });
    expect(live.created).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(live.counts.received).toBe(20);
    expect(live.counts.dropped).toBeGreaterThan(0);
    expect(live.counts.rejected).toBe(0);
    // What the reader shows is what the service's own answer for that subscription says.
    const direct = await client.subscription(sub.id);
    expect(direct.counts.received).toBe(live.counts.received);
    expect(direct.counts.dropped).toBeGreaterThanOrEqual(live.counts.dropped);
  });

  it('says what is wrong when the service wants a token, is not there, or is not a runtime service', async () => {
    const noToken = await serviceStatus(service.url, undefined);
    expect(noToken).toMatchObject({ kind: 'refused', status: 401, code: 'UNAUTHORIZED', url: service.url });
    expect(noToken.kind === 'refused' && noToken.fix).toContain('FIRSTLIGHT_RUNTIME_TOKEN');

    const dead = `http://127.0.0.1:${await deadPort()}`;
    const down = await serviceStatus(dead, undefined);
    expect(down).toMatchObject({ kind: 'unreachable', url: dead });
    expect(down.kind === 'unreachable' && down.why).toContain('ECONNREFUSED');

    // The UI page itself is no runtime service: it answers with a page, not a listing.
    const wrong = await serviceStatus(new URL(ui.url).origin, undefined);
    expect(wrong).toMatchObject({ kind: 'refused', status: 404 });

    expect(await serviceStatus(undefined, TOKEN)).toEqual({ kind: 'unconfigured' });
  });

  it("validates the listing's query, documented in the OpenAPI document", async () => {
    const headers = { authorization: `Bearer ${TOKEN}` };
    const bad = await fetch(`${service.url}/v1/subscriptions?state=closed`, { headers });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('INVALID_REQUEST');
    expect(body.error.message).toContain('state');
    const unknown = await fetch(`${service.url}/v1/subscriptions?stat=all`, { headers });
    expect(unknown.status).toBe(400);
    const all = await client.subscriptions({ all: true });
    expect(all.map((s) => s.id)).toContain(sub.id);
    const openapi = (await client.openapi()) as {
      paths: Record<string, { get: { parameters?: { name: string; schema: { enum?: string[] } }[] } }>;
    };
    const parameters = openapi.paths['/v1/subscriptions']!.get.parameters ?? [];
    expect(parameters.find((p) => p.name === 'state')?.schema.enum).toEqual(['open', 'all']);
  });

  it('tells an open Runtime page when the counts change, and serves the section it refreshes', async () => {
    const origin = new URL(ui.url).origin;
    const section = async () => {
      const page = await fetch(`${origin}/runtime/subscriptions`, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      return page.text();
    };
    const received = (text: string) => Number(/data-count="received">(\d+)</.exec(text)?.[1] ?? Number.NaN);
    const first = await section();
    expect(first).toContain(`data-subscription="${sub.id}"`);
    expect(first).toContain(`session ${sub.session}`);
    expect(first).toMatch(/class="num warn" data-count="dropped">[1-9]\d*</);
    expect(received(first)).toBe(20);

    let page: EventReader | undefined;
    let other: EventReader | undefined;
    try {
      page = await readEvents(`${origin}/events?view=runtime`);
      other = await readEvents(`${origin}/events?view=memory`);
      // A page that connects is told at once (it may have missed a change while it loaded).
      await page.next('subscriptions');
      const seen = page.count('subscriptions');
      await client.send(
        sub.id,
        Array.from({ length: 10 }, (_, i) => ({ participant: 'bob', text: `tock ${i}` })),
      );
      await page.next('subscriptions', seen);
      const now = await waitFor('the section to show 30 received', async () => {
        const text = await section();
        return received(text) === 30 ? text : undefined;
      });
      expect(now).toContain('ann, bob');
      // Only pages showing the Runtime view are told.
      expect(other.count('subscriptions')).toBe(0);
    } finally {
      page?.close();
      other?.close();
    }
  });

  it('shows the service gone, with its URL and why, when it stops', async () => {
    const origin = new URL(ui.url).origin;
    const page = await readEvents(`${origin}/events?view=runtime`);
    try {
      await page.next('subscriptions');
      const seen = page.count('subscriptions');
      expect(await service.stop()).toBe(0);
      await page.next('subscriptions', seen);
      const runtime = await (await fetch(`${origin}/runtime`, { headers: { accept: 'text/html' } })).text();
      expect(runtime).toContain(`The runtime service at <code>${service.url}</code> is not reachable`);
      expect(runtime).toContain('ECONNREFUSED');
    } finally {
      page.close();
    }
  });
});
