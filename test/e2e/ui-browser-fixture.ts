/**
 * Debian's Chromium for the `firstlight ui` browser tests: where it is, whether it is there (the
 * tests skip with the reason printed when not), a headless launch with an empty profile, where
 * screenshots go, and the accessibility checks every page must pass.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { REPO_ROOT, tempDir } from '../helpers/index.js';

export const CHROMIUM = process.env.FIRSTLIGHT_CHROMIUM ?? '/usr/bin/chromium';

/** Whether Chromium is there; says why the test is skipped when it is not. */
export function chromiumAvailable(suite: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  console.warn(
    `${suite} skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set FIRSTLIGHT_CHROMIUM to a Chromium binary)`,
  );
  return false;
}

/** Screenshots of the views, kept as test artifacts (not committed). */
export const ARTIFACTS = join(REPO_ROOT, 'test', 'artifacts', 'ui');

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface HeadlessChromium {
  browser: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

/** Headless Chromium with an empty profile of its own and one page (1280×900), in Auckland's time zone. */
export async function launchChromium(): Promise<HeadlessChromium> {
  const profile = tempDir('firstlight-chromium-');
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await chromium.launchPersistentContext(profile.dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1280, height: 900 },
    // A browser far from UTC: the pages say every time in UTC, the script's own included.
    timezoneId: 'Pacific/Auckland',
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  return {
    browser,
    page,
    close: async () => {
      await browser.close();
      profile.dispose();
    },
  };
}

/** Landmarks, labels and link text every page owes a screen reader and a keyboard. */
export function accessibilityProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    if (
      !document.querySelector('header') ||
      !document.querySelector('main') ||
      !document.querySelector('footer')
    )
      out.push('a landmark is missing');
    if (!document.querySelector('nav[aria-label]')) out.push('the navigation has no label');
    for (const field of document.querySelectorAll<HTMLInputElement>(
      'input:not([type=hidden]), select, textarea',
    ))
      if ((field.labels?.length ?? 0) === 0 && !field.getAttribute('aria-label'))
        out.push(`unlabelled ${field.name}`);
    for (const a of document.querySelectorAll('a'))
      if (!(a.textContent ?? '').trim() && !a.getAttribute('aria-label'))
        out.push(`a link without text: ${a.outerHTML.slice(0, 80)}`);
    for (const svg of document.querySelectorAll('svg'))
      if (!svg.querySelector('title')) out.push('an svg without a title');
    return out;
  });
}
