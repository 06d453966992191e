/**
 * Issue 36: the "Captured" view of `firstlight ui`. In review mode a capture proposes; the view
 * shows each proposed memory beside the words it came from, Accept makes it a memory in force
 * (it cautions the next yarn call), Reject forgets the other; the budget line and the last
 * captures are there too.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../helpers/index.js';
import { cliAsync, type RunningUiProcess, startUi } from './ui-fixture.js';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'capture', 'sessions');

function call(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  return new Promise<{ status: number; location: string | undefined; body: string }>((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('firstlight ui: Captured (issue 36)', { timeout: 90_000 }, () => {
  let place: { dir: string; dispose: () => void };
  let home: string;
  let ui: RunningUiProcess;
  let origin: string;

  beforeAll(async () => {
    place = tempDir('firstlight-ui-captured-');
    home = join(place.dir, 'home');
    expect((await cliAsync(['init', '--example', '--home', home, '--json'])).code).toBe(0);
    writeFileSync(join(home, 'firstlight.yaml'), 'capture:\n  mode: review\n');
    for (const id of ['yarn-pnpm', 'two-rules-and-question']) {
      const ran = await cliAsync(
        [
          'capture',
          '--home',
          home,
          '--session',
          id,
          '--transcript',
          join(FIXTURES, `${id}.jsonl`),
          '--project',
          place.dir,
        ],
        { env: { FIRSTLIGHT_HOME: '' } },
      );
      expect(ran.code, ran.stderr).toBe(0);
    }
    ui = await startUi(['--home', home, '--project', place.dir]);
    origin = new URL(ui.url).origin;
  });
  afterAll(async () => {
    await ui?.stop();
    place?.dispose();
  });

  const post = async (path: string, values: Record<string, string>) => {
    const page = await call(`${origin}/captured`);
    const csrf = /<meta name="csrf-token" content="([0-9a-f]+)">/.exec(page.body)![1]!;
    return call(`${origin}${path}`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, ...values }).toString(),
    });
  };

  it('shows each proposed memory beside its words; accept puts it in force, reject forgets it', async () => {
    const page = await call(`${origin}/captured`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<h2 id="proposed">Proposed (3)</h2>');
    // The words it came from, quoted, beside the memory.
    expect(page.body).toContain('<q>Never use yarn in this repo, always pnpm.</q>');
    expect(page.body).toContain('transcript:L1');
    expect(page.body).toMatch(/data-testid="curator-budget">No curator/);
    expect(page.body).toContain('data-testid="last-captures"');
    const proposedFiles = [
      ...page.body.matchAll(/action="\/captured\/accept"[^>]*>.*?name="name" value="([^"]+)"/g),
    ].map((m) => m[1]!);
    expect(proposedFiles).toHaveLength(3);
    const yarn = proposedFiles.find((f) => f.includes('yarn'))!;
    const other = proposedFiles.find((f) => f !== yarn)!;

    const accepted = await post('/captured/accept', { name: yarn });
    expect(accepted.status).toBe(303);
    expect(accepted.location).toContain('/captured?done=accepted');
    expect(readFileSync(join(home, 'memory', yarn), 'utf8')).not.toContain('status:');
    const rejected = await post('/captured/reject', { name: other });
    expect(rejected.status).toBe(303);

    const after = await call(`${origin}${accepted.location}`);
    expect(after.body).toContain('<h2 id="proposed">Proposed (1)</h2>');
    expect(after.body).toMatch(/<h2 id="kept">Captured memories \(1\)<\/h2>/);
    expect(after.body).toContain('Accepted “Never use yarn in this repo”');
    // In force: the next yarn call meets the caution.
    const pre = await cliAsync(['hook', 'pre-tool-use', '--host', 'claude', '--home', home], {
      input: JSON.stringify({
        session_id: 'n',
        cwd: place.dir,
        tool_name: 'Bash',
        tool_input: { command: 'yarn add x' },
      }),
      env: { FIRSTLIGHT_GATE_BYPASS: '1', FIRSTLIGHT_HOME: '' },
    });
    expect(pre.stdout).toContain('Never use yarn');
    // An unknown name is refused with the fix.
    const missing = await post('/captured/accept', { name: 'no_such.md' });
    expect(missing.status).toBe(404);
    expect(missing.body).toContain('firstlight memory review lists the proposed memories');
  });
});
