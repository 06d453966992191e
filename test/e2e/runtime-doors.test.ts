import { existsSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { RuntimeClient } from 'firstlight/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { InvokeResult } from '../../src/runtime/index.js';
import { REPO_ROOT, tempDir, wireHttp, wireStdio } from '../helpers/index.js';
import { DELIVERABLES, HANDOFFS, type RuntimeFixture, roleArgs, runtimeFixture } from './runtime-fixture.js';
import { type RunningService, runCliAsync, startService } from './runtime-service-fixture.js';

/**
 * Issue 35, items 3, 4 and 8's first point: what a request through the runtime service's doors
 * (HTTP, fan-out, MCP over HTTP and on stdio) may ask for. An override only when the service
 * allows one; servers only by the names its settings declare (never a command line); handoffs by
 * id only; and every request carries the token the service generated at start.
 */

const FS_SERVER = join(
  REPO_ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-filesystem',
  'dist',
  'index.js',
);

const OVERRIDE = (modes: string[]) => ({
  type: 'operator_collapsed_modes',
  modes_collapsed: modes,
  reason: 'production incident: checkout is down and the patch ships within thirty minutes',
  acknowledged_risks: ['the session shares context across the collapsed modes'],
});

/** A raw request, with the Host a browser would send. */
function raw(
  url: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const at = new URL(path, url);
    const req = httpRequest(
      {
        host: at.hostname,
        port: at.port,
        path: at.pathname,
        method: options.method ?? 'GET',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...options.headers,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('the runtime service doors: override, servers, handoffs (issue 35)', { timeout: 180_000 }, () => {
  let fx: RuntimeFixture;
  let service: RunningService;
  let client: RuntimeClient;
  let workspace: string;
  let artifact: string;
  const home = () => ['--home', fx.home, '--project', fx.project];
  const settings = (service: Record<string, unknown> = {}) =>
    writeFileSync(
      join(fx.home, 'firstlight.yaml'),
      stringify({
        runtime: {
          service: {
            servers: { files: { command: process.execPath, args: [FS_SERVER, workspace] } },
            ...service,
          },
        },
      }),
    );
  /** A validator (or explorer) asking, under an override, for the declared server's write tool. */
  const collapsing = (
    role: 'validator' | 'explorer',
    target: string,
    servers: string[] | Record<string, Record<string, unknown>> = ['files'],
  ) => {
    const script = fx.script({
      steps: [
        { tool_calls: [{ name: 'files__write_file', input: { path: target, content: 'written' } }] },
        { text: 'Done.', output: role === 'validator' ? DELIVERABLES.validator : DELIVERABLES.explorer },
      ],
    });
    return {
      script,
      request: {
        persona: 'team',
        role,
        surface: 'audit',
        engagement: 'agent' as const,
        task: `work as ${role}`,
        ...(role === 'validator' ? { handoffs: [artifact] } : {}),
        override: OVERRIDE(role === 'validator' ? ['execution', 'validation'] : ['exploration', 'execution']),
        servers,
        tools: ['files__write_file'],
        substrate: `scripted:${script.path}`,
      },
    };
  };
  const mcpHttp = () => wireHttp(`${service.url}/mcp`, service.auth);
  const callInvoke = async (mcp: Client, args: Record<string, unknown>) => {
    const answer = await mcp.callTool({ name: 'invoke_persona', arguments: args });
    return { isError: answer.isError === true, text: (answer.content as { text: string }[])[0]!.text };
  };

  beforeAll(async () => {
    fx = runtimeFixture();
    workspace = tempDir('firstlight-doors-workspace-').dir;
    settings();
    // A builder session of this ledger (the operator at the keyboard may pass the plan's file).
    const plan = fx.file('doors-plan.json', HANDOFFS.plan);
    const build = fx.script({ steps: [{ text: 'Built.', output: DELIVERABLES.builder }] });
    const built = await runCliAsync(
      [
        'invoke',
        ...home(),
        '--json',
        ...roleArgs('team', 'builder', 'code-output'),
        '--handoff',
        plan,
        '--substrate',
        `scripted:${build.path}`,
      ],
      { cwd: fx.project },
    );
    artifact = (JSON.parse(built.stdout) as InvokeResult).meta.handoff_id!;
    expect(artifact).toMatch(/^artifact-/);
    service = await startService(home());
    client = new RuntimeClient({ url: service.url, home: fx.home });
  });
  afterAll(async () => {
    await service?.stop();
    fx?.dispose();
  });

  it('refuses an override through every door (OVERRIDE_NOT_ALLOWED, journaled): no read-only role reaches a write tool', async () => {
    const post = (body: unknown) =>
      raw(service.url, '/v1/invocations', {
        method: 'POST',
        headers: service.auth,
        body: JSON.stringify(body),
      });
    const targets: string[] = [];
    const scripts: { received: () => unknown[] }[] = [];
    const next = (role: 'validator' | 'explorer') => {
      const target = join(workspace, `written-${targets.length}.txt`);
      targets.push(target);
      // The servers as a client of today's main sends them: the command line itself.
      const made = collapsing(role, target, {
        files: { command: process.execPath, args: [FS_SERVER, workspace] },
      });
      scripts.push(made.script);
      return made.request;
    };
    for (const role of ['validator', 'explorer'] as const) {
      const one = await post(next(role));
      expect(one.status, one.body).toBe(403);
      expect(JSON.parse(one.body)).toMatchObject({
        error: { code: 'OVERRIDE_NOT_ALLOWED', fix: expect.stringContaining('allow_override') },
      });
      const { task: _, ...fan } = next(role);
      const many = await post({ ...fan, tasks: ['one', 'two'] });
      expect(many.status).toBe(403);
      const mcp = await mcpHttp();
      const viaMcp = await callInvoke(mcp.client, next(role));
      await mcp.close();
      expect(viaMcp.isError).toBe(true);
      expect(viaMcp.text).toMatch(/^OVERRIDE_NOT_ALLOWED: /);
      const stdio = await wireStdio(['runtime', 'mcp', ...home()], { cwd: fx.project });
      const viaStdio = await callInvoke(stdio.client, next(role));
      await stdio.close();
      expect(viaStdio.text).toMatch(/^OVERRIDE_NOT_ALLOWED: /);
    }
    // Nothing ran: no model was asked, no file was written through the server's write tool.
    for (const target of targets) expect(existsSync(target), target).toBe(false);
    for (const script of scripts) expect(script.received()).toHaveLength(0);
    const refusals = (await client.journal({ type: 'refusal' })).filter(
      (e) => e.fields.reason === 'override_not_allowed',
    );
    expect(refusals.map((e) => e.fields.door).sort()).toEqual([
      'http',
      'http',
      'http',
      'http',
      'mcp',
      'mcp',
      'mcp',
      'mcp',
    ]);
    expect(refusals.map((e) => e.fields.modes_collapsed)).toContain('execution,validation');
  });

  it('with runtime.service.allow_override, an override widens the tool set to the collapsed modes, journaled at start and end', async () => {
    settings({ allow_override: true });
    const allowing = await startService(home());
    try {
      const target = join(workspace, 'allowed.txt');
      const { request, script } = collapsing('validator', target);
      const result = await new RuntimeClient({ url: allowing.url, home: fx.home }).invoke(request);
      expect(result.status, JSON.stringify(result.meta)).toBe('completed');
      expect(result.meta.override_produced).toBe(true);
      expect(result.meta.tools).toContain('files__write_file');
      expect(existsSync(target)).toBe(true);
      expect(script.received()).toHaveLength(1);
      const rows = await client.journal({ session: result.meta.session_id });
      expect(rows.map((r) => r.kind)).toEqual(expect.arrayContaining(['override_start', 'override_end']));
      // It widens to the collapsed modes only: an explorer collapsing exploration and planning stays read-only.
      const { request: reader } = collapsing('explorer', join(workspace, 'never.txt'));
      const narrow = await new RuntimeClient({ url: allowing.url, home: fx.home }).invoke({
        ...reader,
        override: OVERRIDE(['exploration', 'planning']),
      });
      expect(narrow.meta.refusal_reason).toBe('mutating_tools_for_role');
      expect(existsSync(join(workspace, 'never.txt'))).toBe(false);
    } finally {
      await allowing.stop();
      settings();
    }
  });

  it('starts only the servers the settings declare: a command line from a request is refused before anything starts', async () => {
    const marker = join(workspace, 'evil-ran');
    const evil = { evil: { command: 'sh', args: ['-c', `touch ${marker}`] } };
    const base = { persona: 'team', role: 'explorer', surface: 'audit', engagement: 'agent', task: 'map' };
    const script = fx.script({ steps: [{ text: 'Mapped.', output: DELIVERABLES.explorer }] });
    const substrate = `scripted:${script.path}`;
    const refused = await raw(service.url, '/v1/invocations', {
      method: 'POST',
      headers: service.auth,
      body: JSON.stringify({ ...base, servers: evil, substrate }),
    });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({
      error: { code: 'SERVER_NOT_DECLARED', message: expect.stringContaining('declared: files') },
      declared: ['files'],
    });
    // A declared name with a command of the request's own: refused too.
    const hijack = await raw(service.url, '/v1/invocations', {
      method: 'POST',
      headers: service.auth,
      body: JSON.stringify({ ...base, servers: { files: evil.evil }, substrate }),
    });
    expect(hijack.status).toBe(403);
    expect(JSON.parse(hijack.body).error.code).toBe('SERVER_COMMAND_NOT_ALLOWED');
    const subscription = await raw(service.url, '/v1/subscriptions', {
      method: 'POST',
      headers: service.auth,
      body: JSON.stringify({ persona: 'team', task: 'watch', servers: evil, substrate }),
    });
    expect(subscription.status).toBe(403);
    const mcp = await mcpHttp();
    const viaMcp = await callInvoke(mcp.client, { ...base, servers: evil, substrate });
    await mcp.close();
    expect(viaMcp.text).toMatch(/^SERVER_NOT_DECLARED: /);
    // The substrate's command line is the operator's too.
    const command = await raw(service.url, '/v1/invocations', {
      method: 'POST',
      headers: service.auth,
      body: JSON.stringify({ ...base, substrate: `command:touch ${marker}` }),
    });
    expect(command.status).toBe(403);
    expect(JSON.parse(command.body).error.code).toBe('SUBSTRATE_NOT_ALLOWED');
    // No process started: `sh -c touch` (or `touch`) would have made the marker.
    expect(existsSync(marker)).toBe(false);
    expect(script.received()).toHaveLength(0);
    // The declared server, by name, with the tools the request chooses.
    const named = await client.invoke({
      ...base,
      engagement: 'agent',
      servers: { files: { tools: ['read_*'] } },
      substrate,
    });
    expect(named.status).toBe('completed');
    const start = (await client.journal({ type: 'session_start', session: named.meta.session_id }))[0];
    expect(start?.fields.task_servers).toBe('files');
  });

  it('takes handoffs by id only: a server file path is refused, never read (HANDOFF_ID_REQUIRED)', async () => {
    const plan = fx.file('door-plan.json', HANDOFFS.plan);
    const script = fx.script({ steps: [{ text: 'Built.', output: DELIVERABLES.builder }] });
    const request = {
      persona: 'team',
      role: 'builder',
      surface: 'code-output',
      engagement: 'agent',
      task: 'build',
      handoffs: [plan],
      substrate: `scripted:${script.path}`,
    };
    const viaHttp = await raw(service.url, '/v1/invocations', {
      method: 'POST',
      headers: service.auth,
      body: JSON.stringify(request),
    });
    expect(viaHttp.status).toBe(400);
    expect(JSON.parse(viaHttp.body)).toMatchObject({
      error: { code: 'HANDOFF_ID_REQUIRED', message: expect.stringContaining('handoffs[0]') },
    });
    const stdio = await wireStdio(['runtime', 'mcp', ...home()], { cwd: fx.project });
    const viaStdio = await callInvoke(stdio.client, { ...request, handoffs: ['/etc/passwd'] });
    await stdio.close();
    expect(viaStdio.text).toMatch(/^HANDOFF_ID_REQUIRED: /);
    expect(script.received()).toHaveLength(0);
    const imports = await client.journal({ type: 'import' });
    expect(imports.some((e) => e.content.includes('door-plan.json'))).toBe(false);
  });
});

describe('the runtime service and the REPL over HTTP want a token on loopback too (issue 35)', {
  timeout: 180_000,
}, () => {
  let fx: RuntimeFixture;
  beforeAll(() => {
    fx = runtimeFixture();
  });
  afterAll(() => fx?.dispose());

  it('runtime serve generates a token, keeps it user-only in the home, answers 401 without it', async () => {
    const service = await startService(['--home', fx.home, '--project', fx.project], {
      FIRSTLIGHT_TOKEN: '',
    });
    const port = new URL(service.url).port;
    const file = join(fx.home, 'run', `runtime-${port}.json`);
    try {
      expect(service.token).toMatch(/^[\w-]{32}$/);
      expect(statSync(join(fx.home, 'run')).mode & 0o777).toBe(0o700);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const host = new URL(service.url).host;
      expect((await raw(service.url, '/v1/health', { headers: { host } })).status).toBe(401);
      const init = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
      });
      expect((await raw(service.url, '/mcp', { method: 'POST', body: init })).status).toBe(401);
      expect((await raw(service.url, '/v1/health', { headers: service.auth })).status).toBe(200);
      // The client library finds it in the home; `firstlight ui --runtime` and `call` look there too.
      expect((await new RuntimeClient({ url: service.url, home: fx.home }).health()).ok).toBe(true);
    } finally {
      await service.stop();
    }
    expect(existsSync(file)).toBe(false);
  });

  it('--no-token serves loopback without one, and is refused off loopback or beside FIRSTLIGHT_TOKEN', async () => {
    const open = await startService(['--home', fx.home, '--project', fx.project, '--no-token'], {
      FIRSTLIGHT_TOKEN: '',
    });
    try {
      expect(open.token).toBeUndefined();
      expect((await raw(open.url, '/v1/health')).status).toBe(200);
    } finally {
      await open.stop();
    }
    const wide = await runCliAsync(
      ['runtime', 'serve', '--home', fx.home, '--host', '0.0.0.0', '--port', '0', '--no-token'],
      { env: { FIRSTLIGHT_TOKEN: '' } },
    );
    expect(wide.status).toBe(2);
    expect(wide.stderr).toContain('--no-token is refused on 0.0.0.0');
    const both = await runCliAsync(['runtime', 'serve', '--home', fx.home, '--port', '0', '--no-token'], {
      env: { FIRSTLIGHT_TOKEN: 'a-long-enough-secret-token-1234' },
    });
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('--no-token and FIRSTLIGHT_TOKEN disagree');
  });

  it('repl serve --http runs code only for a caller with its token; firstlight call finds it in the home', async () => {
    const { spawn } = await import('node:child_process');
    const { CLI } = await import('../helpers/index.js');
    const child = spawn(
      process.execPath,
      [CLI, 'repl', 'serve', '--http', '--port', '0', '--home', fx.home],
      {
        cwd: fx.project,
        env: { ...process.env, FIRSTLIGHT_TOKEN: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const exited = new Promise((resolve) => child.once('close', resolve));
    try {
      const { waitFor } = await import('../helpers/index.js');
      await waitFor('the banner', () => out.includes('Ctrl-C to stop'), { timeoutMs: 90_000 });
      const url = /MCP endpoint: (\S+)/.exec(out)![1]!;
      const code = 'code=import os; os.getuid()';
      const env = { FIRSTLIGHT_TOKEN: '', FIRSTLIGHT_HOME: tempDir('firstlight-other-home-').dir };
      const stranger = await runCliAsync(['call', 'execute', '--arg', code, '--http', url, '--json'], {
        env,
      });
      // Refused for want of its token: bad usage the caller fixes (exit 2), the code UNAUTHORIZED.
      expect(stranger.status).toBe(2);
      expect(stranger.stderr).toMatch(/HTTP 401/);
      const owner = await runCliAsync(
        ['call', 'execute', '--arg', code, '--home', fx.home, '--http', url, '--json'],
        { env },
      );
      expect(owner.status, owner.stderr).toBe(0);
      expect(JSON.parse(owner.stdout).result.return_value).toBe(process.getuid!());
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});

describe('runtime.service in firstlight.yaml (issue 35)', { timeout: 60_000 }, () => {
  it('refuses to start on a broken runtime.service, naming each field', async () => {
    const fx = runtimeFixture();
    try {
      writeFileSync(
        join(fx.home, 'firstlight.yaml'),
        stringify({ runtime: { service: { allow_override: 'yes', servers: { evil: { args: ['x'] } } } } }),
      );
      for (const door of [
        ['runtime', 'serve', '--port', '0'],
        ['runtime', 'mcp'],
      ]) {
        const ran = await runCliAsync([...door, '--home', fx.home, '--project', fx.project]);
        expect(ran.status).toBe(2);
        expect(ran.stderr).toContain('runtime.service.allow_override: Invalid input: expected boolean');
        expect(ran.stderr).toContain('runtime.service.servers.evil.command');
        expect(ran.stderr).not.toContain('using the default');
      }
    } finally {
      fx.dispose();
    }
  });
});
