import { existsSync, mkdirSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/index.js';
import { cliAsync, type RunningUiProcess, startUi } from './ui-fixture.js';

/**
 * `firstlight ui` over plain HTTP: the same Host/Origin rules as the HTTP servers, the token off
 * loopback, no write without a same-origin request carrying the page's form token, and the
 * event stream a page listens on.
 */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const form = (values: Record<string, string>) => ({
  'content-type': 'application/x-www-form-urlencoded',
  body: new URLSearchParams(values).toString(),
});

const TOKEN = 'ui-suite-token-0123456789abcdef0123';

describe('firstlight ui over HTTP', { timeout: 90_000 }, () => {
  let place: { dir: string; dispose: () => void };
  let home: string;
  let ui: RunningUiProcess;
  let origin: string;
  let csrf: string;

  beforeAll(async () => {
    place = tempDir('firstlight-ui-http-');
    home = join(place.dir, 'home');
    expect((await cliAsync(['init', '--example', '--home', home, '--json'])).code).toBe(0);
    ui = await startUi(['--home', home, '--project', place.dir]);
    origin = new URL(ui.url).origin;
    const page = await call(`${origin}/memory`);
    csrf = /<meta name="csrf-token" content="([0-9a-f]+)">/.exec(page.body)![1]!;
  });
  afterAll(async () => {
    await ui?.stop();
    place?.dispose();
  });

  it('serves every view on loopback without a token', async () => {
    for (const path of [
      '/',
      '/wakeup',
      '/memory',
      '/memory?q=deploy',
      '/observations',
      '/sessions',
      '/runtime',
      '/hosts',
    ]) {
      const answer = await call(`${origin}${path}`);
      expect(answer.status, path).toBe(200);
      expect(answer.headers['content-security-policy'], path).toContain("script-src 'self'");
    }
  });

  it('searches the events of past sessions on the Observations view, through recall (issue 39)', async () => {
    const payload = {
      session_id: 'ui-sess-7',
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'systemctl restart nginx-gateway' },
      tool_response: { stdout: 'nginx-gateway restarted', stderr: '' },
    };
    const hooked = await cliAsync(['hook', 'post-tool-use', '--host', 'claude', '--home', home], {
      input: JSON.stringify(payload),
      env: { FIRSTLIGHT_GATE_BYPASS: '1' },
    });
    expect(hooked.code, hooked.stderr).toBe(0);
    const page = await call(`${origin}/observations?range=all&q=${encodeURIComponent('restart nginx')}`);
    expect(page.status).toBe(200);
    const hits = /<table data-testid="event-hits">([\s\S]*?)<\/table>/.exec(page.body)?.[1] ?? '';
    expect(hits).toContain('nginx-gateway restarted');
    expect(hits).toContain('ui-sess-7');
    expect(hits).toContain('hook (claude)');
    const none = await call(`${origin}/observations?range=all&q=${encodeURIComponent('zebra quasar')}`);
    expect(none.body).toContain('No event in this range matches');
  });

  it('counts memories, not MEMORY.md, where a person reads a count (issue 38)', async () => {
    const listed = Number(
      /data-testid="results-heading">(\d+) memories/.exec((await call(`${origin}/memory`)).body)?.[1],
    );
    expect(listed).toBeGreaterThan(0);
    const wakeup = (await call(`${origin}/wakeup`)).body;
    expect(wakeup).toContain(`the ${listed} memories themselves`);
    // The SessionStart text the page shows is the hook's: the same count, MEMORY.md not among the kinds.
    const memoryLine = /## Memory\s+([^\n]+)/.exec(wakeup)?.[1] ?? '';
    expect(memoryLine).toMatch(new RegExp(`^${listed} memories \\(`));
    expect(memoryLine).not.toContain('index 1');
    expect(memoryLine).toContain('index MEMORY.md present');
    // The packet's total_count keeps MEMORY.md, as the seed's catalog counts it.
    const packet = await cliAsync(['packet', '--home', home, '--json'], { cwd: place.dir });
    expect(packet.code, packet.stderr).toBe(0);
    const catalog = (JSON.parse(packet.stdout) as { memory_catalog: { total_count: number } }).memory_catalog;
    expect(catalog.total_count).toBe(listed + 1);
  });

  it('refuses a foreign Host (DNS rebinding) and a foreign Origin', async () => {
    const port = new URL(origin).port;
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`]) {
      const answer = await call(`${origin}/memory`, { headers: { host } });
      expect(answer.status, host).toBe(403);
      expect(answer.body).toContain('Host header');
    }
    const foreign = await call(`${origin}/memory`, { headers: { origin: 'http://evil.example' } });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toContain('Origin');
    const events = await call(`${origin}/wakeup`, { headers: { origin: 'null' } });
    expect(events.status).toBe(403);
  });

  it('writes nothing without a same-origin request carrying the form token', async () => {
    const file = join(home, 'memory', 'user_alex.md');
    const forget = `${origin}/memory/m/user_alex.md/forget`;
    const refusals: [string, Record<string, string>, Record<string, string>][] = [
      ['no Origin, no Sec-Fetch-Site (a script)', {}, { _csrf: csrf }],
      ['a foreign Origin', { origin: 'http://evil.example' }, { _csrf: csrf }],
      ['a cross-site fetch', { origin, 'sec-fetch-site': 'cross-site' }, { _csrf: csrf }],
      ['a same-site fetch from another port', { 'sec-fetch-site': 'same-site' }, { _csrf: csrf }],
      ['no form token', { origin }, {}],
      ['a wrong form token', { origin }, { _csrf: csrf.replace(/.$/, (c) => (c === '0' ? '1' : '0')) }],
    ];
    for (const [why, headers, values] of refusals) {
      const { body, ...type } = form(values);
      const answer = await call(forget, { method: 'POST', headers: { ...headers, ...type }, body });
      expect(answer.status, why).toBe(403);
      expect(existsSync(file), why).toBe(true);
    }
    // The same request from the page itself goes through (and is undone).
    const { body, ...type } = form({ _csrf: csrf });
    const done = await call(forget, {
      method: 'POST',
      headers: { origin, 'sec-fetch-site': 'same-origin', ...type },
      body,
    });
    expect(done.status).toBe(303);
    expect(done.headers.location).toContain('/memory?done=forgot');
    expect(existsSync(file)).toBe(false);
    const restore = form({ _csrf: csrf, name: 'user_alex.md' });
    const back = await call(`${origin}/memory/restore`, {
      method: 'POST',
      headers: { origin, 'content-type': restore['content-type'] },
      body: restore.body,
    });
    expect(back.status).toBe(303);
    expect(existsSync(file)).toBe(true);
  });

  it('refuses a broken edit with the field named and leaves the file as it was', async () => {
    const page = await call(`${origin}/memory/m/user_sam.md`);
    const base = /name="base" value="([0-9a-f]+)"/.exec(page.body)![1]!;
    const { body, ...type } = form({ _csrf: csrf, base, text: '---\ntype: user\n---\nno name\n' });
    const answer = await call(`${origin}/memory/m/user_sam.md/edit`, {
      method: 'POST',
      headers: { origin, ...type },
      body,
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toContain('name: must be a non-empty string');
    const stale = form({ _csrf: csrf, base: '0'.repeat(64), text: '---\nname: Sam\ntype: user\n---\nx\n' });
    const conflict = await call(`${origin}/memory/m/user_sam.md/edit`, {
      method: 'POST',
      headers: { origin, 'content-type': stale['content-type'] },
      body: stale.body,
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toContain('changed on disk after you opened it');
  });

  it('tells an open page which views changed, over server-sent events', async () => {
    const got = await new Promise<string>((resolve, reject) => {
      const req = request(`${origin}/events`, (res) => {
        expect(res.headers['content-type']).toContain('text/event-stream');
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          if (text.includes('event: ready') && !text.includes('wrote')) {
            text += '\n(wrote)';
            void cliAsync(['remember', '--home', home, '--type', 'note', '--name', 'SSE probe'], {
              input: 'A memory written while a page listens.\n',
            });
          }
          const change = /event: change\ndata: (.*)\n/.exec(text);
          if (change && JSON.parse(change[1]!).views.includes('memory')) {
            req.destroy();
            resolve(change[1]!);
          }
        });
      });
      req.on('error', (error) => {
        if (!(error as NodeJS.ErrnoException).code?.includes('ECONNRESET')) reject(error);
      });
      req.end();
    });
    expect(JSON.parse(got).views).toEqual(expect.arrayContaining(['memory', 'wakeup']));
  });

  it('refuses to bind beyond loopback without a token', async () => {
    const ran = await cliAsync(['ui', '--no-open', '--host', '0.0.0.0', '--port', '0', '--home', home], {
      env: { FIRSTLIGHT_TOKEN: '' },
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('refusing to serve on 0.0.0.0 without a token');
  });

  it('off loopback, refuses every request without the token; the sign-in form sets a cookie that carries it', async () => {
    const open = await startUi(['--host', '0.0.0.0', '--home', home, '--project', place.dir], {
      FIRSTLIGHT_TOKEN: TOKEN,
    });
    try {
      const local = `http://127.0.0.1:${new URL(open.url).port}`;
      for (const path of ['/', '/memory', '/events', '/assets/ui.css']) {
        const answer = await call(`${local}${path}`, { headers: { accept: 'text/html' } });
        expect(answer.status, path).toBe(401);
        expect(answer.body, path).not.toContain('Wren');
      }
      const wrong = await call(`${local}/memory`, { headers: { authorization: `Bearer ${TOKEN}x` } });
      expect(wrong.status).toBe(401);
      expect((await call(`${local}/memory`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(
        200,
      );
      const bad = form({ token: 'not-the-token' });
      expect(
        (
          await call(`${local}/login`, {
            method: 'POST',
            headers: { origin: local, 'content-type': bad['content-type'] },
            body: bad.body,
          })
        ).status,
      ).toBe(401);
      const good = form({ token: TOKEN });
      const scripted = await call(`${local}/login`, {
        method: 'POST',
        headers: { 'content-type': good['content-type'] },
        body: good.body,
      });
      expect(scripted.status).toBe(403);
      const signed = await call(`${local}/login`, {
        method: 'POST',
        headers: { origin: local, 'content-type': good['content-type'] },
        body: good.body,
      });
      expect(signed.status).toBe(303);
      const cookie = String(signed.headers['set-cookie']).split(';')[0]!;
      expect(cookie).not.toContain(TOKEN);
      expect((await call(`${local}/memory`, { headers: { cookie } })).status).toBe(200);
      expect((await call(`${local}/memory`, { headers: { cookie: `${cookie}0` } })).status).toBe(401);
    } finally {
      await open.stop();
    }
  });
});

describe('firstlight ui: Hosts says what doctor says; a page that is not there is no view (issue 38)', {
  timeout: 120_000,
}, () => {
  let place: { dir: string; dispose: () => void };
  let ui: RunningUiProcess;
  // No host program on PATH: doctor skips the host it finds installed.
  const env = { PATH: [...new Set([dirname(process.execPath), '/usr/bin', '/bin'])].join(':') };
  beforeAll(async () => {
    place = tempDir('firstlight-ui-hosts-');
    const home = join(place.dir, 'home');
    const project = join(place.dir, 'project');
    mkdirSync(join(project, '.git'), { recursive: true });
    expect((await cliAsync(['init', '--example', '--home', home, '--json'])).code).toBe(0);
    const installed = await cliAsync(['install', 'gemini', '--project', project, '--home', home, '--json'], {
      env,
    });
    expect(installed.code, installed.stderr).toBe(0);
    const doctor = await cliAsync(['doctor', '--project', project, '--home', home, '--json'], { env });
    const report = JSON.parse(doctor.stdout) as { hosts: { host: string; skipped?: unknown }[] };
    expect(report.hosts.map((h) => [h.host, h.skipped !== undefined])).toEqual([['gemini', true]]);
    ui = await startUi(['--home', home, '--project', project], env);
  });
  afterAll(async () => {
    await ui?.stop();
    place?.dispose();
  });

  it('marks a host doctor skipped as skipped, with why and how to install it, not ✓ ok', async () => {
    const page = (await call(`${new URL(ui.url).origin}/hosts`)).body;
    const state = /data-testid="state">([^<]+)</.exec(page)?.[1];
    expect(state).toBe('– skipped');
    expect(page).toContain('Gemini CLI is not on this machine');
    expect(page).not.toContain('✓ ok</span></h2>');
  });

  it('highlights no view on a 404', async () => {
    const answer = await call(`${new URL(ui.url).origin}/no/such/page`);
    expect(answer.status).toBe(404);
    expect(answer.body).toContain('Not found');
    expect(answer.body).not.toContain('aria-current');
  });
});
