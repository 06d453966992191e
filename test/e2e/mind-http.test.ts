/**
 * What only the HTTP transport does: its printed URL and config, Host/Origin checks, and the
 * token rules beyond loopback. The packet cases shared with stdio are in mind-transports.test.ts.
 */
import { symlinkSync } from 'node:fs';
import { request } from 'node:http';
import { hostname, networkInterfaces } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI,
  exampleHomeCopy,
  REPO_ROOT,
  run,
  runCli,
  startHttpServer,
  structured,
  tempDir,
  waitFor,
  wireHttp,
} from '../helpers/index.js';

/** PATH without any firstlight on it: the directories of node and sh only. */
const NO_FIRSTLIGHT = [...new Set([dirname(process.execPath), '/usr/bin', '/bin'])].join(':');

const TOKEN = 'sesame-0123456789abcdef';

/** POSTs an initialize to `url`, optionally with another Host header than the URL's. */
function rawPost(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname.replace(/^\[|\]$/g, ''),
        port: u.port,
        path: u.pathname,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The address a wildcard bind should print: an external IPv4 if any, else any external, else loopback. */
function expectedWildcardAddress(): string {
  const external = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && !a.address.startsWith('fe80:'));
  const pick = external.find((a) => a?.family === 'IPv4') ?? external[0];
  if (!pick) return '127.0.0.1';
  return pick.family === 'IPv6' ? `[${pick.address}]` : pick.address;
}

describe('mind over streamable HTTP on loopback', () => {
  const home = exampleHomeCopy();
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  beforeAll(async () => {
    server = await startHttpServer(['--home', home.dir]);
  });
  afterAll(async () => {
    await server.stop();
    home.dispose();
  });

  it('prints the URL, a copy-paste client config and a firstlight call line without auth', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.output()).toContain('"mcpServers"');
    expect(server.output()).not.toContain('Authorization');
  });

  it('prints a Try-it line that runs as written: node and the CLI from a checkout, firstlight once installed (issue 38)', async () => {
    // From the checkout, as npm start runs it, with no firstlight on PATH.
    const line = /^Try it: (.+)$/m.exec(server.output())?.[1] ?? '';
    expect(line).toMatch(/^node \S*dist\/cli\/main\.js call bootstrap_session --http /);
    const ran = await run('sh', ['-c', `${line} --json`], {
      cwd: REPO_ROOT,
      env: { ...process.env, PATH: NO_FIRSTLIGHT },
    });
    expect(ran.status, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout).result.mind_contract_available).toBe(true);
    // Installed: the bin on PATH is this CLI, so the line names it.
    const bin = tempDir('firstlight-bin-');
    try {
      symlinkSync(join(dirname(CLI), 'firstlight.cjs'), join(bin.dir, 'firstlight'));
      const installed = await startHttpServer(['--home', home.dir], { PATH: `${bin.dir}:${NO_FIRSTLIGHT}` });
      try {
        expect(installed.output()).toContain(
          `Try it: firstlight call bootstrap_session --http ${installed.url}`,
        );
      } finally {
        await installed.stop();
      }
    } finally {
      bin.dispose();
    }
  });

  it('refuses a wrong Host header and a foreign Origin', async () => {
    const wrongHost = await rawPost(server.url, { host: 'evil.example:80' });
    expect(wrongHost.status).toBe(403);
    expect(wrongHost.body).toContain('Host header');
    expect(wrongHost.body).toContain('--allowed-host');
    const foreign = await rawPost(server.url, { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toContain('Origin');
    expect((await rawPost(server.url, {})).status).toBe(200);
  });

  it('answers an oversized body with 413 and a malformed one with 400', async () => {
    const post = (body: string) =>
      fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
      });
    const big = await post('x'.repeat(5 * 1024 * 1024));
    expect(big.status).toBe(413);
    expect(await big.text()).toContain('request body over');
    expect((await post('{not json')).status).toBe(400);
  });
});

describe('HTTP session lifetime', () => {
  it('closes a session idle past --session-idle; the client gets 404 and a new session works', async () => {
    const home = exampleHomeCopy();
    // At debug level the server logs each session it closes: the test waits for that line.
    // Two seconds: long enough that a loaded machine still pings a fresh session before it expires.
    const server = await startHttpServer(['--home', home.dir, '--session-idle', '2'], {
      FIRSTLIGHT_LOG: 'debug',
    });
    try {
      const idle = await wireHttp(server.url);
      await idle.client.ping();
      await waitFor('the idle session to be closed', () =>
        /http session \S+ idle for 2000 ms: closed/.test(server.output()),
      );
      await expect(idle.client.ping()).rejects.toThrow(/404|expired session/);
      await idle.close();
      const fresh = await wireHttp(server.url);
      await fresh.client.ping();
      await fresh.close();
    } finally {
      await server.stop();
      home.dispose();
    }
  });

  it('refuses a --session-idle that is not a positive number', async () => {
    const home = exampleHomeCopy();
    try {
      const run = await runCli([
        'serve',
        '--http',
        '--port',
        '0',
        '--home',
        home.dir,
        '--session-idle',
        'soon',
      ]);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain('--session-idle must be a positive number of seconds');
    } finally {
      home.dispose();
    }
  });
});

describe('HTTP beyond loopback', () => {
  it('refuses to start on 0.0.0.0 without FIRSTLIGHT_TOKEN, and with a short one', async () => {
    const home = exampleHomeCopy();
    try {
      const args = ['serve', '--http', '--host', '0.0.0.0', '--port', '0', '--home', home.dir];
      const none = await runCli(args, { env: { FIRSTLIGHT_TOKEN: '' } });
      expect(none.status).toBe(2);
      expect(none.stderr).toContain('refusing to serve on 0.0.0.0 without a token');
      expect(none.stderr).toContain('FIRSTLIGHT_TOKEN');
      const short = await runCli(args, { env: { FIRSTLIGHT_TOKEN: 'short-token' } });
      expect(short.status).toBe(2);
      expect(short.stderr).toContain('FIRSTLIGHT_TOKEN is too short: 11 characters, at least 16 required');
      expect(short.stderr).toContain('fix:');
      // The same rule on loopback: a token that is set must be worth having.
      const loopShort = await runCli(['serve', '--http', '--port', '0', '--home', home.dir], {
        env: { FIRSTLIGHT_TOKEN: 'short-token' },
      });
      expect(loopShort.status).toBe(2);
      expect(loopShort.stderr).toContain('too short');
    } finally {
      home.dispose();
    }
  });

  describe('a wildcard bind with a token', () => {
    const home = exampleHomeCopy();
    let server: Awaited<ReturnType<typeof startHttpServer>>;
    const auth = { authorization: `Bearer ${TOKEN}` };
    beforeAll(async () => {
      server = await startHttpServer(
        ['--host', '0.0.0.0', '--allowed-host', 'mind.example.test', '--home', home.dir],
        { FIRSTLIGHT_TOKEN: TOKEN },
      );
    });
    afterAll(async () => {
      await server.stop();
      home.dispose();
    });

    it('prints a usable URL (a real interface address) and the Authorization header, never the token', () => {
      const port = new URL(server.url).port;
      expect(server.url).toBe(`http://${expectedWildcardAddress()}:${port}/mcp`);
      const output = server.output();
      const ref = `$${'{'}FIRSTLIGHT_TOKEN}`; // the environment reference, printed literally
      expect(output).toContain(`"Authorization": "Bearer ${ref}"`);
      expect(output).toContain(`call bootstrap_session --http ${server.url}   (sends $FIRSTLIGHT_TOKEN)`);
      expect(output).not.toContain(TOKEN);
    });

    it('serves the packet at the printed URL and requires the bearer token', async () => {
      expect((await rawPost(server.url, {})).status).toBe(401);
      expect((await rawPost(server.url, { authorization: 'Bearer wrong-token-xxxxxxxxxx' })).status).toBe(
        401,
      );
      const wired = await wireHttp(server.url, { Authorization: `Bearer ${TOKEN}` });
      try {
        const packet = structured<{ mind_contract_available: boolean }>(
          await wired.client.callTool({ name: 'bootstrap_session', arguments: {} }),
        );
        expect(packet.mind_contract_available).toBe(true);
      } finally {
        await wired.close();
      }
    });

    it('accepts Host names of this machine and --allowed-host, and refuses a foreign Host even with the token', async () => {
      const port = new URL(server.url).port;
      for (const host of [
        `127.0.0.1:${port}`,
        `localhost:${port}`,
        `${hostname()}:${port}`,
        `mind.example.test:${port}`,
      ]) {
        expect((await rawPost(server.url, { ...auth, host })).status, host).toBe(200);
      }
      const foreign = await rawPost(server.url, { ...auth, host: `evil.example:${port}` });
      expect(foreign.status).toBe(403);
      expect(JSON.parse(foreign.body).error.message).toContain('Host header "evil.example');
      const origin = await rawPost(server.url, { ...auth, origin: 'http://evil.example' });
      expect(origin.status).toBe(403);
    });
  });
});
