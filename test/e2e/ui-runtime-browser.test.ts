import { join } from 'node:path';
import { RuntimeClient } from 'firstlight/client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type RuntimeFixture, runtimeFixture } from './runtime-fixture.js';
import { type RunningService, startService } from './runtime-service-fixture.js';
import {
  ARTIFACTS,
  accessibilityProblems,
  chromiumAvailable,
  type HeadlessChromium,
  launchChromium,
} from './ui-browser-fixture.js';
import { type RunningUiProcess, startUi } from './ui-fixture.js';

/**
 * The Runtime view's live subscriptions in a real browser: a real `firstlight runtime serve`
 * (with a token) holds a subscription whose scripted interpretations are slower than the events
 * sent to it, so its buffer drops and coalesces; `firstlight ui --runtime URL` shows it with its
 * counts in headless Chromium, the counts follow the service without a reload, and the view says
 * so when the service goes away. Screenshots in test/artifacts/ui/.
 */
const available = chromiumAvailable('ui runtime browser test');
const TOKEN = 'runtime-browser-token-0123456789abcdef';

describe.skipIf(!available)('live subscriptions in headless Chromium', { timeout: 240_000 }, () => {
  let fx: RuntimeFixture;
  let service: RunningService;
  let client: RuntimeClient;
  let ui: RunningUiProcess;
  let chromium: HeadlessChromium;
  let page: Page;
  const subs: { dropping: string; coalescing: string } = { dropping: '', coalescing: '' };
  const problems: string[] = [];

  beforeAll(async () => {
    fx = runtimeFixture();
    service = await startService(['--home', fx.home, '--project', fx.project], { FIRSTLIGHT_TOKEN: TOKEN });
    client = new RuntimeClient({ url: service.url, token: TOKEN });
    const slow = fx.file('slow.yaml', stringify({ steps: [{ delay_ms: 400, text: 'The stream moved.' }] }));
    const observer = (policy: 'drop_oldest' | 'coalesce') => ({
      persona: 'team',
      surface: 'real-time-stream',
      task: 'Say what the stream shows, in a line.',
      policy,
      max_pending: 4,
      channels: [{ name: 'captions' }, { name: 'plain', voice: 'strict' as const }],
      substrate: `scripted:${slow}`,
    });
    subs.dropping = (await client.subscribe(observer('drop_oldest'))).id;
    subs.coalescing = (await client.subscribe(observer('coalesce'))).id;
    const burst = (who: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({ participant: who, type: 'tick', text: `${who} ${i}` }));
    await client.send(subs.dropping, burst('ann', 30));
    await client.send(subs.coalescing, burst('bob', 30));
    ui = await startUi(['--home', fx.home, '--project', fx.project, '--runtime', service.url], {
      FIRSTLIGHT_RUNTIME_TOKEN: TOKEN,
    });
    chromium = await launchChromium();
    page = chromium.page;
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} for ${response.url()}`);
    });
  }, 240_000);

  afterAll(async () => {
    await chromium?.close();
    await ui?.stop();
    await service?.stop();
    fx?.dispose();
  });

  const count = (id: string, name: string) =>
    page.locator(`tr[data-subscription="${id}"] td[data-count="${name}"]`);
  const countOf = async (id: string, name: string) => Number(await count(id, name).textContent());

  it('shows each subscription with its backpressure counts, following the service without a reload', async () => {
    const response = await page.goto(new URL('/runtime', ui.url).href);
    expect(response?.status()).toBe(200);
    await page.waitForSelector('body[data-live="ready"]');
    const dropping = page.locator(`tr[data-subscription="${subs.dropping}"]`);
    const coalescing = page.locator(`tr[data-subscription="${subs.coalescing}"]`);
    await dropping.waitFor();
    expect(await dropping.textContent()).toContain('drop_oldest');
    expect(await dropping.textContent()).toContain('≤ 4 pending');
    expect(await dropping.textContent()).toContain('captions, plain');
    expect(await dropping.textContent()).toContain('ann');
    expect(await countOf(subs.dropping, 'received')).toBe(30);
    expect(await countOf(subs.dropping, 'dropped')).toBeGreaterThan(0);
    expect(await count(subs.dropping, 'dropped').getAttribute('class')).toContain('warn');
    expect(await coalescing.textContent()).toContain('coalesce');
    expect(await countOf(subs.coalescing, 'received')).toBe(30);
    expect(await accessibilityProblems(page)).toEqual([]);

    // Interpretations go on with nothing written that the page watches: the counts still move.
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 1;
    });
    const coalescedBefore = await countOf(subs.coalescing, 'coalesced');
    const late = (who: string) =>
      Array.from({ length: 20 }, (_, i) => ({ participant: who, text: `late ${i}` }));
    await client.send(subs.dropping, late('cy'));
    await client.send(subs.coalescing, late('dee'));
    await page.waitForFunction(
      (id) =>
        document.querySelector(`tr[data-subscription="${id}"] td[data-count="received"]`)?.textContent ===
        '50',
      subs.dropping,
      { timeout: 30_000 },
    );
    expect(await dropping.textContent()).toContain('ann, cy');
    // The coalescing one folds what waits into one interpretation: its count moves too.
    await page.waitForFunction(
      ([id, before]) =>
        Number(
          document.querySelector(`tr[data-subscription="${id}"] td[data-count="coalesced"]`)?.textContent,
        ) > Number(before),
      [subs.coalescing, String(coalescedBefore)] as const,
      { timeout: 30_000 },
    );
    expect(await countOf(subs.coalescing, 'coalesced')).toBeGreaterThan(0);
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    expect(Number(await page.getAttribute('body', 'data-service-updates'))).toBeGreaterThanOrEqual(1);
    // What the page shows is what the service says.
    const listed = await client.subscription(subs.dropping);
    expect(listed.counts.received).toBe(50);
    await page.screenshot({ path: join(ARTIFACTS, 'runtime-live.png'), fullPage: true });

    // Torn down: it leaves the list of live ones.
    await client.teardown(subs.coalescing);
    await coalescing.waitFor({ state: 'detached', timeout: 30_000 });
    expect(await dropping.count()).toBe(1);
    expect(problems).toEqual([]);
  });

  it('says the service is not reachable, with its URL and why, once it stops', async () => {
    expect(await service.stop()).toBe(0);
    const status = page.locator('[data-testid=service-status]');
    await page.waitForFunction(
      () => document.querySelector('[data-testid=service-status]')?.textContent?.includes('not reachable'),
      undefined,
      { timeout: 30_000 },
    );
    expect(await status.textContent()).toContain(service.url);
    expect(await status.textContent()).toContain('ECONNREFUSED');
    expect(await page.locator('[data-testid=subscriptions]').count()).toBe(0);
    await page.screenshot({ path: join(ARTIFACTS, 'runtime-unreachable.png'), fullPage: true });
  });
});
