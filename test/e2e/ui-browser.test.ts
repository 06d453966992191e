import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ARTIFACTS,
  accessibilityProblems,
  chromiumAvailable,
  type HeadlessChromium,
  launchChromium,
} from './ui-browser-fixture.js';
import { cliAsync, type RunningUiProcess, startUi, type UiPlace, uiPlace } from './ui-fixture.js';

/**
 * `firstlight ui` in a real browser: Debian's Chromium, headless, driven by playwright-core over
 * the DevTools protocol with an empty profile. Every view on a lived-in example home, memory
 * search through recall, an edit and a forget seen on disk, a memory another process writes
 * appearing without a reload, and the handoff graph of a scripted workflow followed link by
 * link. A screenshot of each view is saved in test/artifacts/ui/.
 */
const available = chromiumAvailable('ui browser test');

describe.skipIf(!available)('firstlight ui in headless Chromium', { timeout: 240_000 }, () => {
  let place: UiPlace;
  let ui: RunningUiProcess;
  let chromium: HeadlessChromium;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    place = await uiPlace();
    ui = await startUi(['--home', place.home, '--project', place.project]);
    chromium = await launchChromium();
    page = chromium.page;
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('response', (response) => {
      // 4xx the test asks for itself (a refused edit is 422) are checked where they happen.
      if (response.status() >= 400 && response.request().method() === 'GET')
        problems.push(`${response.status()} for ${response.url()}`);
    });
  }, 240_000);

  afterAll(async () => {
    await chromium?.close();
    await ui?.stop();
    place?.dispose();
  });

  async function open(path: string): Promise<void> {
    const response = await page.goto(new URL(path, ui.url).href);
    expect(response?.status(), path).toBe(200);
    await page.waitForSelector('body[data-live="ready"]');
  }

  async function shot(name: string): Promise<void> {
    await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
  }

  const accessible = () => accessibilityProblems(page);

  it('opens every view, each accessible, and saves a screenshot of each', async () => {
    await open('/wakeup');
    expect(await page.textContent('[data-testid=resumption]')).toContain('The cache TTL fix is in');
    expect(await page.textContent('[data-testid=session-start]')).toContain(
      '# firstlight: session bootstrap',
    );
    expect(
      await page.locator('#per-host ~ table tbody tr, section[aria-labelledby=per-host] tbody tr').count(),
    ).toBe(6);
    expect(await page.textContent('[data-testid=left-out]')).toContain('memories themselves');
    expect(await accessible()).toEqual([]);
    await shot('wakeup');

    await open('/memory');
    expect(await page.textContent('[data-testid=results-heading]')).toMatch(/^1\d memories/);
    expect(await accessible()).toEqual([]);
    await shot('memory');

    // A memory's history: the agent's recall, its observe call (flagged) and the hook's caution.
    await open('/memory/m/caution_force_push.md');
    const history = await page.textContent('[data-testid=history]');
    expect(history).toContain('recalled for “force push release branch”');
    expect(history).toContain('relevant as a cautionary flag to observe(Bash)');
    expect(history).toContain('caution (warn) before Bash on claude');
    expect(await page.textContent('[data-testid=frontmatter]')).toContain('git_push*, Bash');
    expect(await accessible()).toEqual([]);
    await shot('memory-detail');

    await open('/observations');
    expect(await page.locator('[data-testid=pe-plot] circle').count()).toBe(2);
    expect(await page.locator('[data-testid=pe-plot] circle.pt-high').count()).toBe(1);
    expect(await page.textContent('[data-testid=cautions]')).toContain('caution_force_push.md');
    // What the agent did next, with the command it ran (issue 38).
    expect(await page.textContent('[data-testid=cautions]')).toContain(
      'went ahead with Bash: git push --force origin release/4.2',
    );
    expect(await page.textContent('[data-testid=events]')).toContain('refused');
    expect(await accessible()).toEqual([]);
    await shot('observations');

    await open('/sessions');
    const sessions = page.locator('[data-testid=sessions-claude]');
    const bootstrapped = sessions.locator('tr', { hasText: place.sessions.bootstrapped });
    expect(await bootstrapped.textContent()).toContain('✓ yes');
    expect(await bootstrapped.textContent()).toContain('startup');
    expect(await bootstrapped.textContent()).toContain('The cache TTL fix is in');
    const gated = sessions.locator('tr', { hasText: place.sessions.gated });
    expect(await gated.textContent()).toContain('✗ no record');
    expect(await gated.textContent()).toContain('1 refused');
    expect(await accessible()).toEqual([]);
    await shot('sessions');

    await open('/runtime');
    expect(await page.locator('[data-testid=workflow]').count()).toBe(2);
    expect(await page.textContent('[data-testid=service-status]')).toContain('not configured');
    expect(await accessible()).toEqual([]);
    await shot('runtime');

    await open('/hosts');
    const claude = page.locator('[data-testid=host-claude]');
    // The state doctor gives it (skipped when Claude Code is not on this machine), its failing checks with their fix.
    const doctor = await cliAsync(['doctor', '--project', place.project, '--home', place.home, '--json']);
    const diagnosis = (
      JSON.parse(doctor.stdout) as { hosts: { host: string; skipped?: unknown }[] }
    ).hosts.find((h) => h.host === 'claude');
    expect(await claude.locator('[data-testid=state]').textContent()).toBe(
      diagnosis?.skipped ? '– skipped' : '✗ failing',
    );
    expect(await claude.locator('[data-testid=fix]').first().textContent()).toContain(
      `firstlight install claude --scope project --project ${place.project}`,
    );
    expect(await accessible()).toEqual([]);
    await shot('hosts');

    const keys = await page.goto(new URL('/assets/keys.html', ui.url).href);
    expect(keys?.status()).toBe(200);
    await shot('keys');
    expect(problems).toEqual([]);
  });

  it('searches memory through recall as the user types, with scores and match shown', async () => {
    await open('/memory');
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 1;
    });
    await page.fill('#q', 'force push release');
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=results-heading]')?.textContent?.includes('force push release'),
    );
    const first = page.locator('[data-testid=results] .result').first();
    expect(await first.locator('h3').textContent()).toBe('Force push caution');
    expect(await first.locator('[data-testid=match]').textContent()).toMatch(/^\d+%$/);
    expect(page.url()).toContain('q=force+push+release');
    // The results followed the typing: the page itself never reloaded.
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    await page.selectOption('#type', 'note');
    await page.waitForFunction(
      () => !document.querySelector('[data-testid=results]')?.textContent?.includes('Force push caution'),
    );
    await shot('memory-search');
  });

  it('edits a memory (a broken edit is refused, nothing written), forgets and restores it: each change on disk', async () => {
    const file = join(place.home, 'memory', 'reference_staging_db.md');
    const index = join(place.home, 'memory', 'MEMORY.md');
    const before = readFileSync(file, 'utf8');
    await open('/memory/m/reference_staging_db.md');
    const edited = before.replace(
      /^description: .*$/m,
      'description: staging Postgres is rebuilt nightly at 03:00 UTC now',
    );
    expect(edited).not.toBe(before);
    await page.fill('#text', edited);
    await Promise.all([page.waitForURL(/done=saved/), page.click('button:has-text("Save")')]);
    expect(await page.textContent('#live')).toContain('Saved');
    expect(readFileSync(file, 'utf8')).toBe(edited);
    expect(readFileSync(index, 'utf8')).toContain('staging Postgres is rebuilt nightly at 03:00 UTC now');

    await page.fill('#text', edited.replace(/^name: .*\n/m, ''));
    await page.click('button:has-text("Save")');
    await page.waitForSelector('[data-testid=edit-error]');
    expect(await page.textContent('[data-testid=edit-error]')).toContain('name');
    expect(readFileSync(file, 'utf8')).toBe(edited);
    await shot('memory-edit-refused');
    // Another memory changes, not the file under the refused text: nothing is said above the
    // red "not saved" (issue 38: a green "files changed" was).
    const handled = Number((await page.getAttribute('body', 'data-refreshes')) ?? 0);
    const other = await cliAsync(
      ['remember', '--home', place.home, '--type', 'note', '--name', 'Kettle rota'],
      {
        input: 'The kettle is descaled on Fridays.\n',
        cwd: place.project,
      },
    );
    expect(other.code, other.stderr).toBe(0);
    // The page handled the change: counted, or (before issue 38) the banner said it.
    await page.waitForFunction(
      (n) =>
        Number(document.body.dataset.refreshes ?? 0) > n ||
        (document.getElementById('live')?.textContent ?? '').includes('files behind this page changed'),
      handled,
    );
    expect(await page.textContent('#live')).not.toContain('files behind this page changed');
    // The file itself changes under the kept text: said, as a caution, not as a success.
    writeFileSync(file, edited.replace('03:00 UTC', '04:00 UTC'));
    await page.waitForSelector('#live .notice-warn');
    expect(await page.textContent('#live')).toContain('files behind this page changed');
    expect(await page.locator('#live .notice-ok').count()).toBe(0);
    writeFileSync(file, edited);

    await open('/memory/m/reference_staging_db.md');
    await Promise.all([page.waitForURL(/done=forgot/), page.click('button:has-text("Forget")')]);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(join(place.home, 'memory', '.trash', 'reference_staging_db.md'))).toBe(true);
    expect(readFileSync(index, 'utf8')).not.toContain('reference_staging_db.md');
    expect(await page.textContent('[data-testid=forgotten]')).toContain('Staging database');
    await Promise.all([page.waitForURL(/done=restored/), page.click('#live button:has-text("Undo")')]);
    expect(readFileSync(file, 'utf8')).toBe(edited);
    expect(readFileSync(index, 'utf8')).toContain('reference_staging_db.md');
  });

  it('fits Sessions at phone width: no sideways scroll of the page (issue 38)', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    try {
      await open('/sessions');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      // Every cell is on screen, Last words included: none hidden past a table's sideways scroll.
      const past = await page.evaluate(
        () =>
          [
            ...document.querySelectorAll(
              'table[data-testid^=sessions] td, table[data-testid^=sessions] th[scope=row]',
            ),
          ]
            .map((cell) => cell.getBoundingClientRect().right)
            .filter((right) => right > window.innerWidth).length,
      );
      expect(past).toBe(0);
      expect(await page.locator('td[data-label="Last words"]').first().isVisible()).toBe(true);
      await shot('sessions-phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('shows a memory another process remembered, without a reload', async () => {
    await open('/memory?q=zebra+crossing');
    expect(await page.textContent('[data-testid=results-heading]')).toMatch(/^0 results/);
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 2;
    });
    const remembered = await cliAsync(
      ['remember', '--home', place.home, '--type', 'note', '--name', 'Zebra crossing rule'],
      // In the page's project: a memory written in another project is that project's (All projects shows it).
      { input: 'At the zebra crossing by the office, cyclists dismount.\n', cwd: place.project },
    );
    expect(remembered.code, remembered.stderr).toBe(0);
    await page.waitForFunction(
      () => document.querySelector('[data-testid=results]')?.textContent?.includes('Zebra crossing rule'),
      undefined,
      { timeout: 20_000 },
    );
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(2);
    expect(Number(await page.getAttribute('body', 'data-refreshes'))).toBeGreaterThanOrEqual(1);
    // One time zone on every page: the script's "updated" time too, not the browser's (issue 38).
    expect(await page.textContent('#live-state')).toMatch(/^live, updated \d\d:\d\d:\d\d UTC$/);
    await shot('memory-live');
  });

  it("follows the scripted workflow's handoff graph, handoff by handoff, refusal and denial marked", async () => {
    await open('/runtime');
    const chain = page.locator('[data-testid=workflow]', { hasText: 'explorer → planner' });
    const graph = chain.locator('[data-testid=handoff-graph]');
    expect(await graph.locator('a.node-link').count()).toBe(5);
    expect(await graph.locator('a.node-link[aria-label*="1 denied"]').count()).toBe(1);
    const refused = page.locator('[data-testid=workflow]', { hasText: 'builder (refused)' });
    expect(await refused.locator('rect.node-bad').count()).toBe(1);
    expect(await refused.textContent()).toContain('missing_handoff');
    // The first handoff by keyboard: focus its arrow and press Enter.
    const first = place.handoffs[0]!;
    await graph.locator(`a[data-handoff="${first.id}"]`).focus();
    await Promise.all([
      page.waitForURL(new RegExp(`/runtime/handoff/${first.id}$`)),
      page.keyboard.press('Enter'),
    ]);
    expect(await page.textContent('[data-testid=handoff-content]')).toContain(`"${first.field}"`);
    expect(await page.textContent('[data-testid=handoff-hash]')).toContain('matches the journal');
    await shot('handoff');
    for (const handoff of place.handoffs) {
      await open('/runtime');
      const link = page
        .locator('[data-testid=workflow]', { hasText: 'explorer → planner' })
        .locator(`a[data-handoff="${handoff.id}"]`);
      expect(await link.getAttribute('aria-label')).toContain(`${handoff.kind} handoff ${handoff.id}`);
      await Promise.all([page.waitForURL(new RegExp(`/runtime/handoff/${handoff.id}$`)), link.click()]);
      expect(await page.textContent('h1')).toContain(handoff.id);
      expect(await page.textContent('[data-testid=handoff-content]')).toContain(`"${handoff.field}"`);
    }
    // A handoff edited after it was handed on no longer matches its journal row, and says so.
    const last = place.handoffs.at(-1)!;
    const file = join(place.project, '.firstlight', 'handoffs', `${last.id}.json`);
    writeFileSync(file, readFileSync(file, 'utf8').replace(`"${last.field}"`, `"${last.field}" `));
    await open(`/runtime/handoff/${last.id}`);
    expect(await page.textContent('[data-testid=handoff-hash]')).toContain('changed since it was journaled');
    expect(problems).toEqual([]);
  });
});
