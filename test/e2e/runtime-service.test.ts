import { mkdirSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { RuntimeClient, RuntimeClientError } from 'firstlight/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import * as z from 'zod';
import type { InvokeResult } from '../../src/runtime/index.js';
import { invocationRequest } from '../../src/servers/runtime-service/index.js';
import { REPO_ROOT, wireStdio } from '../helpers/index.js';
import { DELIVERABLES, HANDOFFS, type RuntimeFixture, roleArgs, runtimeFixture } from './runtime-fixture.js';
import { normalized, type RunningService, runCliAsync, startService } from './runtime-service-fixture.js';

/**
 * The runtime as a service: the HTTP door (through the typed client, `firstlight/client`) and
 * the MCP door (a real SDK client over streamable HTTP and over stdio) give what the CLI gives
 * for the same invocation; refusals keep their reasons at every door; the guard holds.
 */

const FS_SERVER = join(
  REPO_ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-filesystem',
  'dist',
  'index.js',
);

describe('firstlight runtime serve', { timeout: 120_000 }, () => {
  let fx: RuntimeFixture;
  let service: RunningService;
  let client: RuntimeClient;
  const home = () => ['--home', fx.home, '--project', fx.project];
  const cli = async (args: string[]) => {
    const ran = await runCliAsync(['invoke', ...home(), '--json', ...args], { cwd: fx.project });
    // The CLI's --json wraps the result in its voice (`ok`, and `error` when it did not complete);
    // the doors answer the result itself (a refusal says so with 422 and error.code).
    const { ok, error, ...result } = JSON.parse(ran.stdout) as InvokeResult & {
      ok: boolean;
      error?: { code: string };
    };
    expect(ok).toBe(ran.status === 0);
    if (!ok)
      expect(error?.code).toBe(
        String(result.meta.refusal_reason ?? result.meta.failure_reason ?? result.status).toUpperCase(),
      );
    return { code: ran.status, result: result as InvokeResult, stderr: ran.stderr };
  };
  const mcpHttp = async () => {
    const mcp = new Client({ name: 'runtime-service-test', version: '0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), {
        requestInit: { headers: service.auth },
      }),
    );
    return mcp;
  };
  const invokePersona = async (mcp: Client, args: Record<string, unknown>) => {
    const answer = await mcp.callTool({ name: 'invoke_persona', arguments: args });
    const { invocation_id: _, ...result } = answer.structuredContent as InvokeResult & {
      invocation_id: string;
    };
    return result as InvokeResult;
  };
  /** The JSON request for `invoke` arguments of roleArgs's shape. */
  const requestOf = (persona: string, role: string, extra: Record<string, unknown> = {}) => ({
    persona,
    role,
    surface: 'audit',
    engagement: 'agent' as const,
    task: `work as ${role}`,
    ...extra,
  });

  /** The servers a request may name: declared by the operator, read once at the service's start. */
  const declared = () => ({
    service: { servers: { files: { command: process.execPath, args: [FS_SERVER, fx.project] } } },
  });

  beforeAll(async () => {
    fx = runtimeFixture();
    writeFileSync(join(fx.home, 'firstlight.yaml'), stringify({ runtime: declared() }));
    service = await startService(home());
    // The client finds the token the service generated in the home's run/.
    client = new RuntimeClient({ url: service.url, home: fx.home });
  });
  afterAll(async () => {
    await service?.stop();
    fx?.dispose();
  });

  it('one_shot over HTTP and over MCP (streamable HTTP and stdio) equals the CLI result for the same scripted invocation', async () => {
    const script = fx.script({
      steps: [{ text: 'Two frames, one tension.', output: DELIVERABLES.explorer }],
    });
    const substrate = `scripted:${script.path}`;
    const viaCli = await cli([...roleArgs('team', 'explorer'), '--substrate', substrate]);
    expect(viaCli.code).toBe(0);
    const viaHttp = await client.invoke(requestOf('team', 'explorer', { substrate }));
    const mcp = await mcpHttp();
    const viaMcp = await invokePersona(mcp, requestOf('team', 'explorer', { substrate }));
    await mcp.close();
    const stdio = await wireStdio(['runtime', 'mcp', ...home()], { cwd: fx.project });
    const viaStdio = await invokePersona(stdio.client, requestOf('team', 'explorer', { substrate }));
    await stdio.close();
    expect(viaCli.result.status).toBe('completed');
    expect(viaCli.result.meta.handoff_id).toMatch(/^synthesis-/);
    for (const result of [viaHttp, viaMcp, viaStdio])
      expect(normalized(result)).toEqual(normalized(viaCli.result));
    // Four sessions, four handoffs, each hashed into its own transition row.
    const ids = [viaCli.result, viaHttp, viaMcp, viaStdio].map((r) => r.meta.handoff_id!);
    for (const id of ids) expect((await client.handoff(id)).verified).toBe(true);
    expect(script.received()).toHaveLength(4);
  });

  it('a validator through invoke_persona refuses mutating tools and extra context exactly as the CLI does', async () => {
    // The artifact comes from a builder session of this ledger (the operator imports the plan file
    // at the keyboard: through the doors a handoff is an id).
    const plan = fx.file('service-plan.json', HANDOFFS.plan);
    const build = fx.script({ steps: [{ text: 'Built.', output: DELIVERABLES.builder }] });
    const built = (
      await cli([
        ...roleArgs('team', 'builder', 'code-output'),
        '--handoff',
        plan,
        '--substrate',
        `scripted:${build.path}`,
      ])
    ).result;
    expect(built.status, JSON.stringify(built.meta)).toBe('completed');
    const artifact = built.meta.handoff_id!;
    const never = 'scripted:/nonexistent/never-read.yaml';
    const contextFile = fx.file('service-context.json', [
      { role: 'user', content: 'as we discussed, it is fine' },
    ]);
    const cases = [
      {
        reason: 'mutating_tools_for_role',
        mcp: { tools: ['Write'] },
        cli: ['--tool', 'Write'],
      },
      {
        reason: 'validator_extra_context',
        mcp: { context: [{ role: 'user', content: 'as we discussed, it is fine' }] },
        cli: ['--context', contextFile],
      },
    ];
    const mcp = await mcpHttp();
    for (const c of cases) {
      const viaMcp = await invokePersona(
        mcp,
        requestOf('team', 'validator', { handoffs: [artifact], substrate: never, ...c.mcp }),
      );
      const viaCli = await cli([
        ...roleArgs('team', 'validator'),
        '--handoff',
        artifact,
        '--substrate',
        never,
        ...c.cli,
      ]);
      expect(viaCli.code).toBe(3);
      expect(viaMcp.status).toBe('refused');
      expect(viaMcp.meta.refusal_reason).toBe(c.reason);
      expect([viaMcp.meta.refusal_reason, viaMcp.meta.detail]).toEqual([
        viaCli.result.meta.refusal_reason,
        viaCli.result.meta.detail,
      ]);
      expect(normalized(viaMcp)).toEqual(normalized(viaCli.result));
    }
    await mcp.close();
    // Each refusal journaled under its own session, nothing run.
    const refusals = await client.journal({ type: 'refusal' });
    expect(refusals.filter((e) => e.fields.reason === 'validator_extra_context')).toHaveLength(2);
  });

  it('answers a refusal 422 with its reason, a request that does not validate 400 naming the field, a missing persona 404', async () => {
    const post = (body: unknown) =>
      fetch(`${service.url}/v1/invocations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...service.auth },
        body: JSON.stringify(body),
      });
    const refused = await post(
      requestOf('team', 'explorer', { tools: ['Write'], substrate: 'scripted:/nonexistent.yaml' }),
    );
    expect(refused.status).toBe(422);
    const body = (await refused.json()) as {
      error: { code: string; message: string; fix: string };
      result: InvokeResult;
    };
    expect(body.error.code).toBe('mutating_tools_for_role');
    expect(body.error.message).toBe('explorer (read_only) may not hold Write');
    expect(body.error.fix).toBeTruthy();
    expect(body.result.status).toBe('refused');

    const typo = await post({ ...requestOf('team', 'explorer'), engagment: 'agent' });
    expect(typo.status).toBe(400);
    expect(await typo.json()).toMatchObject({
      error: { code: 'INVALID_REQUEST', message: 'body: engagment: unknown field' },
    });
    const wrongType = await post({ ...requestOf('team', 'explorer'), engagement: 'autonomous' });
    expect(((await wrongType.json()) as { error: { message: string } }).error.message).toMatch(
      /^body: engagement: /,
    );

    // A fix speaks the door's language: request fields and settings keys, never a CLI flag (issue 38).
    const misfits = [
      requestOf('team', 'nobody'),
      requestOf('team', 'explorer', { substrate: 'nonesuch' }),
      requestOf('team', 'explorer', { surface: 'fax' }),
      { ...requestOf('team', 'explorer'), task: ' ' },
      requestOf('nobody', 'explorer'),
    ];
    for (const misfit of misfits) {
      const answer = (await (await post(misfit)).json()) as { error: { code: string; fix?: string } };
      expect(answer.error.fix, JSON.stringify(misfit)).toBeTruthy();
      expect(answer.error.fix, answer.error.code).not.toMatch(/(?:^|\s)--[a-z]/);
    }

    const missing = await post(requestOf('nobody', 'explorer'));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'NOT_FOUND', fix: expect.any(String) } });

    // The reference is generated from the schema the request was validated with.
    type Operation = { requestBody: { content: Record<string, { schema: unknown }> } };
    const openapi = (await client.openapi()) as { paths: Record<string, Record<string, Operation>> };
    expect(openapi.paths['/v1/invocations']!.post!.requestBody.content['application/json']!.schema).toEqual(
      JSON.parse(JSON.stringify(z.toJSONSchema(invocationRequest, { io: 'input' }))),
    );
    for (const path of [
      '/v1/invocations/{id}',
      '/v1/invocations/{id}/events',
      '/v1/subscriptions',
      '/v1/subscriptions/{id}/events',
      '/v1/subscriptions/{id}/stream',
      '/v1/personas',
      '/v1/journal',
      '/v1/handoffs/{id}',
    ])
      expect(Object.keys(openapi.paths)).toContain(path);
  });

  it('runs a request Prefer: respond-async with its events resumable, and never twice for one Idempotency-Key', async () => {
    const script = fx.script({ steps: [{ delay_ms: 100, text: 'Mapped.', output: DELIVERABLES.explorer }] });
    const request = requestOf('team', 'explorer', {
      substrate: `scripted:${script.path}`,
      task: 'idempotent map',
    });
    const accepted = await client.submit(request, { idempotencyKey: 'map-once' });
    expect(accepted.state).toBe('queued');
    const events: string[] = [];
    let result: InvokeResult | undefined;
    for await (const event of client.events(accepted.id)) {
      events.push(event.event);
      if (event.event === 'result') result = event.data as InvokeResult;
    }
    expect(events).toEqual(['state', 'state', 'text', 'usage', 'result']);
    expect(result?.status).toBe('completed');
    // Resumed after the second event: exactly the rest.
    const rest: string[] = [];
    for await (const event of client.events(accepted.id, { after: 2 })) rest.push(event.event);
    expect(rest).toEqual(['text', 'usage', 'result']);
    // A retry with the same key gets the same invocation's result; no second session ran.
    const again = await client.invoke(request, { idempotencyKey: 'map-once' });
    expect(again.meta.session_id).toBe(result!.meta.session_id);
    expect(script.received()).toHaveLength(1);
    expect((await client.invocation(accepted.id)).state).toBe('completed');
  });

  it('fans out within a mode under a concurrency limit, results in task order', async () => {
    const script = fx.script({ steps: [{ delay_ms: 50, text: 'Mapped.', output: DELIVERABLES.explorer }] });
    const { task: _, ...request } = requestOf('team', 'explorer', { substrate: `scripted:${script.path}` });
    const { invocations, results } = await client.invokeMany({
      ...request,
      tasks: ['angle one', 'angle two', 'angle three'],
      concurrency: 2,
    });
    expect(invocations).toHaveLength(3);
    expect(results.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    expect(new Set(results.map((r) => r.meta.session_id)).size).toBe(3);
    const tasks = script.received().map((r) => r.messages[0]!.content.split('\n')[0]);
    expect(tasks.sort()).toEqual(['angle one', 'angle three', 'angle two']);
  });

  it('resolves persona@1 and persona@2 side by side, a klappy:// profile from a local directory, and refuses at load a prompt URI that resolves nowhere', async () => {
    const personas = join(fx.home, 'personas');
    for (const version of [1, 2]) {
      writeFileSync(
        join(personas, `oddie@${version}.yaml`),
        stringify({
          persona: 'oddie',
          version,
          system_prompt_uri: `oddie-v${version}.md`,
          roles: ['explorer', 'observer'],
        }),
      );
      writeFileSync(join(personas, `oddie-v${version}.md`), `You are Oddie, version ${version}.\n`);
    }
    const canon = join(fx.project, 'canon');
    mkdirSync(join(canon, 'personas'), { recursive: true });
    mkdirSync(join(canon, 'canon', 'voice'), { recursive: true });
    writeFileSync(
      join(canon, 'personas', 'river.md'),
      [
        '---',
        'persona: river',
        'version: 3',
        'role: explorer',
        'brand_discipline_uri: klappy://canon/voice/river#brand-guide',
        '---',
        'You are River, who guides by questions.',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(canon, 'canon', 'voice', 'river.md'),
      '# River\n\n## Brand guide\n\nNo otters in JSON.\n',
    );
    writeFileSync(
      join(personas, 'lost.yaml'),
      stringify({ persona: 'lost', system_prompt_uri: 'klappy://canon/voice/nowhere', roles: ['explorer'] }),
    );
    writeFileSync(
      join(fx.home, 'firstlight.yaml'),
      stringify({ runtime: { sources: [{ prefix: 'klappy://', dir: canon }], ...declared() } }),
    );

    const script = fx.script({ steps: [{ text: 'Mapped.', output: DELIVERABLES.explorer }] });
    const substrate = `scripted:${script.path}`;
    const one = await client.invoke(requestOf('oddie@1', 'explorer', { substrate }));
    const two = await client.invoke(requestOf('oddie@2', 'explorer', { substrate }));
    const latest = await client.invoke(requestOf('oddie', 'explorer', { substrate }));
    const river = await client.invoke(requestOf('klappy://personas/river', 'explorer', { substrate }));
    expect([one, two, latest, river].map((r) => [r.status, r.meta.persona, r.meta.persona_version])).toEqual([
      ['completed', 'oddie', 1],
      ['completed', 'oddie', 2],
      ['completed', 'oddie', 2],
      ['completed', 'river', 3],
    ]);
    const prompts = script.received().map((r) => r.systemPrompt.split('\n')[0]);
    expect(prompts).toEqual([
      'You are Oddie, version 1.',
      'You are Oddie, version 2.',
      'You are Oddie, version 2.',
      'You are River, who guides by questions.',
    ]);
    // The brand discipline travels by pointer (its text is never inlined), resolved at load.
    const riverPrompt = script.received()[3]!.systemPrompt;
    expect(riverPrompt).toContain('klappy://canon/voice/river#brand-guide');
    expect(riverPrompt).not.toContain('No otters in JSON');

    const pinnedWrong = await fetch(`${service.url}/v1/invocations`, {
      method: 'POST',
      headers: service.auth,
      body: JSON.stringify(requestOf('oddie@7', 'explorer', { substrate })),
    });
    expect(pinnedWrong.status).toBe(404);

    const lost = await fetch(`${service.url}/v1/invocations`, {
      method: 'POST',
      headers: service.auth,
      body: JSON.stringify(requestOf('lost', 'explorer', { substrate })),
    });
    expect(lost.status).toBe(422);
    const error = ((await lost.json()) as { error: { code: string; message: string; fix: string } }).error;
    expect(error.code).toBe('PROFILE_INVALID');
    expect(error.message).toContain('system_prompt_uri: klappy://canon/voice/nowhere resolves nowhere');
    const viaCli = await runCliAsync([
      'invoke',
      ...home(),
      ...roleArgs('lost', 'explorer'),
      '--substrate',
      substrate,
    ]);
    expect(viaCli.status).toBe(2);
    expect(viaCli.stderr).toContain('system_prompt_uri: klappy://canon/voice/nowhere resolves nowhere');
    expect(script.received()).toHaveLength(4); // nothing ran for the refused loads

    const listed = await client.personas();
    expect(listed.personas.map((p) => p.ref)).toEqual(expect.arrayContaining(['oddie@1', 'oddie@2', 'lost']));
    expect(listed.personas.find((p) => p.ref === 'lost')?.error).toContain('system_prompt_uri');
  });

  it("adds an invocation's task-relevant server, by the name the service declares, classified by the profile's rule for it", async () => {
    const servers = ['files'];
    writeFileSync(
      join(fx.home, 'personas', 'reader.yaml'),
      stringify({
        persona: 'reader',
        system_prompt_uri: 'team-prompt.md',
        roles: ['explorer'],
        servers: { files: { trust_read_only_hint: true } }, // a rule, no command: the task brings the server
      }),
    );
    const script = fx.script({ steps: [{ text: 'Read.', output: DELIVERABLES.explorer }] });
    const substrate = `scripted:${script.path}`;
    // No rule for the name: every tool is mutating to an explorer, and asking for one is refused.
    const refused = await client.invoke(
      requestOf('team', 'explorer', { servers, tools: ['files__read_text_file'], substrate }),
    );
    expect(refused.meta.refusal_reason).toBe('mutating_tools_for_role');
    const ruleless = await client.invoke(requestOf('team', 'explorer', { servers, substrate }));
    expect(ruleless.meta.tools).toEqual([]);
    // The profile's rule trusts the server's read-only hints: read tools in, writes out.
    const ruled = await client.invoke(requestOf('reader', 'explorer', { servers, substrate }));
    expect(ruled.status).toBe('completed');
    expect(ruled.meta.tools).toContain('files__read_text_file');
    expect(ruled.meta.tools).not.toContain('files__write_file');
    const viaCli = await cli([
      ...roleArgs('reader', 'explorer'),
      '--server',
      `files=${process.execPath} ${FS_SERVER} ${fx.project}`,
      '--substrate',
      substrate,
    ]);
    expect(viaCli.result.meta.tools).toEqual(ruled.meta.tools);
    const start = (await client.journal({ type: 'session_start', session: ruled.meta.session_id }))[0];
    expect(start?.fields.task_servers).toBe('files');
  });
});

describe('the runtime service guard', { timeout: 120_000 }, () => {
  let fx: RuntimeFixture;
  let service: RunningService;
  const TOKEN = 'a-long-enough-secret-token-1234';
  beforeAll(async () => {
    fx = runtimeFixture();
    service = await startService(['--home', fx.home, '--project', fx.project], { FIRSTLIGHT_TOKEN: TOKEN });
  });
  afterAll(async () => {
    await service?.stop();
    fx?.dispose();
  });

  /** A raw request (fetch will not send a Host header of our choosing). */
  const raw = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(path, service.url);
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, headers }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('answers 401 to a wrong token, 403 to a foreign Host or Origin, and serves the right token', async () => {
    const host = new URL(service.url).host;
    expect((await raw('/v1/health', { host, authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await raw('/v1/health', { host })).status).toBe(401);
    const foreignHost = await raw('/v1/health', { host: 'evil.example', authorization: `Bearer ${TOKEN}` });
    expect(foreignHost.status).toBe(403);
    expect(JSON.parse(foreignHost.body)).toMatchObject({
      error: { code: 'FORBIDDEN', fix: expect.any(String) },
    });
    const foreignOrigin = await raw('/v1/health', {
      host,
      origin: 'http://evil.example',
      authorization: `Bearer ${TOKEN}`,
    });
    expect(foreignOrigin.status).toBe(403);
    expect((await raw('/mcp', { host, authorization: 'Bearer wrong' })).status).toBe(401);
    const client = new RuntimeClient({ url: service.url, token: TOKEN });
    expect((await client.health()).ok).toBe(true);
    await expect(new RuntimeClient({ url: service.url, token: 'wrong' }).health()).rejects.toBeInstanceOf(
      RuntimeClientError,
    );
  });

  it('refuses to start on a non-loopback address without a token (--no-token), and refuses a short one', async () => {
    const ran = await runCliAsync(
      ['runtime', 'serve', '--home', fx.home, '--host', '0.0.0.0', '--port', '0', '--no-token'],
      { env: { FIRSTLIGHT_TOKEN: '' } },
    );
    expect(ran.status).toBe(2);
    expect(ran.stderr).toContain('--no-token is refused on 0.0.0.0');
    const short = await runCliAsync(['runtime', 'serve', '--home', fx.home, '--port', '0'], {
      env: { FIRSTLIGHT_TOKEN: 'short' },
    });
    expect(short.status).toBe(2);
    expect(short.stderr).toContain('FIRSTLIGHT_TOKEN is too short');
  });
});
