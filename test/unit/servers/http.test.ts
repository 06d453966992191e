import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../../src/core/index.js';
import { serveHttp } from '../../../src/servers/index.js';

const options = (port: number) => ({
  host: '127.0.0.1',
  port,
  log: silentLogger,
  createServer: () => new McpServer({ name: 'unit', version: '0' }),
});

describe('serveHttp', () => {
  let occupier: Server | undefined;
  afterEach(async () => {
    vi.useRealTimers();
    await new Promise((resolve) => occupier?.close(resolve) ?? resolve(undefined));
    occupier = undefined;
  });

  // The session sweeper is unref'd, so process.getActiveResourcesInfo() does not list it: the
  // interval timers are counted through vitest's fake timers instead (sockets stay real).
  it('leaves no timer behind when the port is in use, and one while it serves', async () => {
    occupier = createServer();
    await new Promise<void>((resolve) => occupier?.listen(0, '127.0.0.1', resolve));
    const port = (occupier.address() as AddressInfo).port;
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });

    await expect(serveHttp(options(port))).rejects.toMatchObject({ code: 'PORT_IN_USE' });
    expect(vi.getTimerCount()).toBe(0);

    const running = await serveHttp(options(0));
    expect(vi.getTimerCount()).toBe(1);
    await running.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});
