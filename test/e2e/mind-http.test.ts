import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleHomeCopy, runCli, startHttpServer, structured, wireHttp } from '../helpers/index.js';

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
        host: u.hostname,
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

describe('mind over streamable HTTP', () => {
  const home = exampleHomeCopy();
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  beforeAll(async () => {
    server = await startHttpServer(['--home', home.dir]);
  });
  afterAll(async () => {
    await server.stop();
    home.dispose();
  });

  it('prints the URL and a copy-paste client config', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(server.output()).toContain('"mcpServers"');
  });

  it('returns the packet to a real SDK client', async () => {
    const wired = await wireHttp(server.url);
    try {
      const { tools } = await wired.client.listTools();
      const packet = structured<{
        schema_version: number;
        session_id: string;
        mind_contract_available: boolean;
        available_mind_tools: string[];
      }>(await wired.client.callTool({ name: 'bootstrap_session', arguments: { session_id: 's1' } }));
      expect(packet.schema_version).toBe(1);
      expect(packet.session_id).toBe('s1');
      expect(packet.mind_contract_available).toBe(true);
      expect(packet.available_mind_tools).toEqual(tools.map((t) => t.name).sort());
    } finally {
      await wired.close();
    }
  });

  it('refuses a wrong Host header and a foreign Origin', async () => {
    const wrongHost = await rawPost(server.url, { host: 'evil.example:80' });
    expect(wrongHost.status).toBe(403);
    expect(wrongHost.body).toContain('Host header');
    const foreign = await rawPost(server.url, { origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toContain('Origin');
  });
});

describe('HTTP beyond loopback', () => {
  it('refuses to start on 0.0.0.0 without FIRSTLIGHT_TOKEN', () => {
    const home = exampleHomeCopy();
    try {
      const result = runCli(['serve', '--http', '--host', '0.0.0.0', '--port', '0', '--home', home.dir], {
        env: { FIRSTLIGHT_TOKEN: '' },
      });
      expect(result.status).toBe(2);
      expect(result.stderr).toContain('refusing to serve on 0.0.0.0 without a token');
      expect(result.stderr).toContain('FIRSTLIGHT_TOKEN');
    } finally {
      home.dispose();
    }
  });

  it('with a token, requires it as a bearer token', async () => {
    const home = exampleHomeCopy();
    const server = await startHttpServer(['--host', '0.0.0.0', '--home', home.dir], {
      FIRSTLIGHT_TOKEN: 'sesame-0123456789',
    });
    try {
      const url = server.url.replace('0.0.0.0', '127.0.0.1');
      expect((await rawPost(url, {})).status).toBe(401);
      expect((await rawPost(url, { authorization: 'Bearer wrong-token-xxxxxxx' })).status).toBe(401);
      const wired = await wireHttp(url, { Authorization: 'Bearer sesame-0123456789' });
      const packet = structured<{ mind_contract_available: boolean }>(
        await wired.client.callTool({ name: 'bootstrap_session', arguments: {} }),
      );
      expect(packet.mind_contract_available).toBe(true);
      await wired.close();
    } finally {
      await server.stop();
      home.dispose();
    }
  });
});
