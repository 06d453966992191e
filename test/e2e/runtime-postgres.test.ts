import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgLedger } from '../../src/runtime/index.js';
import { type Cluster, findPostgres, startCluster } from '../helpers/pg-cluster.mjs';
import { runtimeFixture } from './runtime-fixture.js';
import { type RunningService, runCliAsync, startService } from './runtime-service-fixture.js';

/**
 * The runtime service on Postgres: several replicas of `firstlight runtime serve --store
 * postgres://…` on one throwaway cluster (run as a non-root user in a temp directory). One is
 * killed with SIGKILL mid-run and every invocation still completes exactly once; the journal
 * prints as the embedded store's does; export-ledger writes the embedded files byte for byte;
 * Postgres away for 10 s gives 503 and the service recovers by itself.
 */

const found = findPostgres();
if (found.skip) console.log(`runtime-postgres: skipped: ${found.skip}`);

const SESSION_MS = 100;
const script = [
  'steps:',
  `  - delay_ms: ${SESSION_MS}`,
  '    text: "Two frames, one tension."',
  '    output:',
  '      handoff: { possibilities: [a, b], tensions: [fresh vs fast], unknowns: [traffic], frames: [cost] }',
  '',
].join('\n');

/** Replicas behind one address share one token (FIRSTLIGHT_TOKEN), as a load balancer needs. */
const TOKEN = 'replicas-share-this-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const res = await fetch(`${url}/v1/invocations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...AUTH, ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The journal as `firstlight journal` prints it, times and ids masked. */
function masked(text: string): string {
  return text
    .replace(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/gm, 'TIME')
    .replace(/\b(s|inv)-[a-z0-9]+-[a-f0-9]+\b/g, 'ID')
    .replace(/\b([a-z]+)-[a-f0-9]{8}\b/g, '$1-HANDOFF')
    .replace(/sha256=[a-f0-9]{64}/g, 'sha256=HASH')
    .replace(/(substrate|script)=[^;\n]*/g, '$1=SCRIPT')
    .replace(/\d+ ms|ms=\d+|_ms=\d+/g, 'MS');
}

describe.skipIf(Boolean(found.skip))('the runtime service on Postgres', { timeout: 240_000 }, () => {
  let cluster: Cluster;
  let fx: ReturnType<typeof runtimeFixture>;
  let scriptPath: string;
  const services: RunningService[] = [];
  const request = (task: string) => ({
    persona: 'explorer',
    surface: 'synthesis-ledger',
    engagement: 'agent',
    task,
    substrate: `scripted:${scriptPath}`,
  });
  const db = (name: string) => cluster.url.replace(/\/postgres$/, `/${name}`);
  const createDb = async (name: string) => {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: cluster.url });
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    return db(name);
  };
  const serve = async (store: string, extra: string[] = []) => {
    const service = await startService(
      ['--home', fx.home, '--project', fx.project, '--store', store, ...extra],
      { FIRSTLIGHT_TOKEN: TOKEN },
    );
    services.push(service);
    return service;
  };

  beforeAll(async () => {
    cluster = await startCluster();
    fx = runtimeFixture();
    scriptPath = fx.file('session-100ms.yaml', script);
  });
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop('SIGKILL')));
    await cluster?.destroy();
  });

  it('applies its migrations on start, once, and refuses a database a newer version migrated', async () => {
    const url = await createDb('migrations');
    const first = await openPgLedger(url);
    const second = await openPgLedger(url);
    try {
      expect(first.applied).toEqual([1, 2]);
      expect(second.applied).toEqual([]);
      await first.pool.query("INSERT INTO firstlight.migrations (version, name) VALUES (99, 'future')");
    } finally {
      await first.close();
      await second.close();
    }
    await expect(openPgLedger(url)).rejects.toMatchObject({ code: 'STORE_TOO_NEW' });
    const served = await runCliAsync(['journal', '--home', fx.home, '--store', url]);
    expect(served.status).toBe(1);
    expect(served.stderr).toMatch(/schema version 99/);
  });

  it('journals as the embedded store does, and exports the embedded files byte for byte', async () => {
    const url = await createDb('same_run');
    const embeddedProject = fx.file('embedded', '');
    void embeddedProject;
    const pgService = await serve(url);
    const fileFx = runtimeFixture();
    const fileScript = fileFx.file('session-100ms.yaml', script);
    const fileService = await startService(['--home', fileFx.home, '--project', fileFx.project], {
      FIRSTLIGHT_TOKEN: TOKEN,
    });
    services.push(fileService);
    for (const [service, path] of [
      [pgService, scriptPath],
      [fileService, fileScript],
    ] as const) {
      for (let i = 0; i < 3; i++) {
        const reply = await post(service.url, { ...request(`task ${i}`), substrate: `scripted:${path}` });
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      }
    }
    const fromPg = await runCliAsync(['journal', '--home', fx.home, '--store', url]);
    const fromFiles = await runCliAsync(['journal', '--home', fileFx.home, '--project', fileFx.project]);
    expect(fromPg.status, fromPg.stderr).toBe(0);
    expect(masked(fromPg.stdout)).toBe(masked(fromFiles.stdout));
    expect(fromPg.stdout).toContain('session_start');

    // export → import into a new database → export: the same bytes; the files read by the
    // embedded store print as Postgres does, and every handoff verifies there.
    const out1 = join(fx.project, 'export-1');
    const out2 = join(fx.project, 'export-2');
    const exported = await runCliAsync([
      'runtime',
      'export-ledger',
      '--home',
      fx.home,
      '--store',
      url,
      '--dir',
      out1,
    ]);
    expect(exported.status, exported.stderr).toBe(0);
    const url2 = await createDb('imported');
    const imported = await runCliAsync([
      'runtime',
      'import-ledger',
      '--home',
      fx.home,
      '--store',
      url2,
      '--dir',
      out1,
    ]);
    expect(imported.status, imported.stderr).toBe(0);
    await runCliAsync(['runtime', 'export-ledger', '--home', fx.home, '--store', url2, '--dir', out2]);
    const files = (dir: string) =>
      readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name).slice(dir.length))
        .sort();
    expect(files(out2)).toEqual(files(out1));
    for (const f of files(out1))
      expect(readFileSync(join(out2, f), 'utf8')).toBe(readFileSync(join(out1, f), 'utf8'));
    expect(files(out1).some((f) => f.startsWith('/journal/'))).toBe(true);
    const journalText = readFileSync(join(out1, files(out1).find((f) => f.startsWith('/journal/'))!), 'utf8');
    expect(journalText.startsWith('type\ttypeName\tfacet')).toBe(true);
  });

  it('three replicas, 300 invocations, one killed mid-run: each completes exactly once', async () => {
    const url = await createDb('replicas');
    const replicas = [
      await serve(url, ['--lease', '3', '--concurrency', '8']),
      await serve(url, ['--lease', '3', '--concurrency', '8']),
      await serve(url, ['--lease', '3', '--concurrency', '8']),
    ];
    const TOTAL = 300;
    let sent = 0;
    const results = new Map<string, Reply>();
    // The consumer: each request waits for its result; a connection the killed replica drops is
    // sent again, with the same Idempotency-Key, to the next live replica.
    const one = async (i: number) => {
      const key = `key-${i}`;
      for (let tries = 0; tries < 6; tries++) {
        const live = replicas.filter((r) => r.child.exitCode === null && r.child.signalCode === null);
        const target = live[(i + tries) % live.length]!;
        try {
          sent++;
          const reply = await post(target.url, request(`task ${i}`), { 'idempotency-key': key });
          results.set(key, reply);
          return;
        } catch {
          // the replica died under this request: try the next one
        }
      }
    };
    const killer = (async () => {
      while (results.size < TOTAL / 3) await new Promise((r) => setTimeout(r, 50));
      await replicas[1]!.stop('SIGKILL');
    })();
    const queue = Array.from({ length: TOTAL }, (_, i) => i);
    await Promise.all(
      Array.from({ length: 60 }, async () => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift()) await one(i);
      }),
    );
    await killer;
    expect(results.size).toBe(TOTAL);
    for (const reply of results.values()) expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(sent).toBeGreaterThanOrEqual(TOTAL);

    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const inv = await client.query<{ id: string; state: string; attempt: number; text: string }>(
        'SELECT id, state, attempt, text FROM firstlight.invocations',
      );
      expect(inv.rows.length).toBe(TOTAL); // one invocation per key: no retry ran a second
      expect(inv.rows.every((r) => r.state === 'completed')).toBe(true);
      const takenOver = inv.rows.filter((r) => r.attempt > 1).length;
      const { rows } = await client.query<{ line: string; kind: string; session: string }>(
        "SELECT line, kind, session FROM firstlight.journal WHERE kind IN ('session_start', 'session_end') ORDER BY id",
      );
      expect(new Set(rows.map((r) => r.line)).size).toBe(rows.length); // no row twice
      const field = (line: string, key: string) => new RegExp(`${key}=([^;]+)`).exec(line)?.[1];
      const starts = rows.filter((r) => r.kind === 'session_start');
      const ends = new Map(rows.filter((r) => r.kind === 'session_end').map((r) => [r.session, r]));
      // Each attempt is one session: one start, and one end when it completed.
      expect(new Set(starts.map((r) => r.session)).size).toBe(starts.length);
      expect(rows.length - starts.length).toBe(ends.size);
      for (const { id, attempt, text } of inv.rows) {
        const mine = starts.filter((r) => field(r.line, 'invocation') === id);
        // Each attempt journaled at most once, the last one always (an attempt whose replica died
        // after its claim and before its session started has no row), every later one a takeover.
        const attempts = mine.map((r) => Number(field(r.line, 'attempt')));
        expect(new Set(attempts).size).toBe(attempts.length);
        expect(attempts).toContain(attempt);
        expect(attempts.every((n) => n >= 1 && n <= attempt)).toBe(true);
        for (const r of mine.filter((r) => Number(field(r.line, 'attempt')) > 1))
          expect(field(r.line, 'reason')).toBe('replica_lost');
        // the result the consumer got is the attempt that completed and was recorded
        const record = JSON.parse(text) as { sessions: string[] };
        expect(ends.has(record.sessions.at(-1)!)).toBe(true);
      }
      expect(starts.filter((r) => r.line.includes('attempt=2')).length).toBe(takenOver);
      expect(takenOver).toBeGreaterThan(0);
      console.log(
        `runtime-postgres: ${TOTAL} invocations, ${takenOver} taken over after the SIGKILL, ${sent} requests sent`,
      );
    } finally {
      await client.end();
    }
    // Every handoff verifies against its journal row, read through another replica.
    const handoffIds = [...results.values()]
      .map((r) => (r.body.meta as { handoff_id?: string }).handoff_id)
      .filter((id): id is string => Boolean(id));
    expect(handoffIds.length).toBe(TOTAL);
    for (const id of handoffIds.slice(0, 300)) {
      const res = await fetch(`${replicas[0]!.url}/v1/handoffs/${id}`, { headers: AUTH });
      const body = (await res.json()) as { verified?: boolean; provenance?: { ok?: boolean } };
      expect(res.status).toBe(200);
      expect(JSON.stringify(body)).toMatch(/"(verified|ok)":true/);
    }
  });

  it('subscriptions across replicas: events posted to any replica reach the holder, its stream reads on any, counts exact', async () => {
    const url = await createDb('subscriptions');
    const [a, b, c] = [await serve(url), await serve(url), await serve(url)];
    const observer = fx.file(
      'observer.yaml',
      ['steps:', '  - delay_ms: 20', '    text: "The stream moved."', ''].join('\n'),
    );
    const opened = await fetch(`${a!.url}/v1/subscriptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...AUTH },
      body: JSON.stringify({
        persona: 'team',
        surface: 'real-time-stream',
        task: 'Say what the stream shows, in a line.',
        policy: 'queue',
        max_pending: 1000,
        substrate: `scripted:${observer}`,
      }),
    });
    const sub = (await opened.json()) as { id: string };
    expect(opened.status, JSON.stringify(sub)).toBe(201);
    // Events through B and C (neither holds it): the holder's answer, its exact counts.
    let accepted = 0;
    for (const [i, target] of [b!, c!, b!, c!].entries()) {
      const res = await fetch(`${target.url}/v1/subscriptions/${sub.id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...AUTH },
        body: JSON.stringify({ events: Array.from({ length: 5 }, (_, j) => ({ text: `event ${i}.${j}` })) }),
      });
      const body = (await res.json()) as { accepted: number; counts: { received: number } };
      expect(res.status, JSON.stringify(body)).toBe(202);
      accepted += body.accepted;
      expect(body.counts.received).toBe(accepted);
    }
    // Its stream, read on C while A interprets: emissions arrive until the teardown (sent to B).
    const reading = (async () => {
      const res = await fetch(`${c!.url}/v1/subscriptions/${sub.id}/stream`, { headers: AUTH });
      expect(res.status).toBe(200);
      return res.text();
    })();
    const settle = async () => {
      for (let i = 0; i < 100; i++) {
        const s = (await (await fetch(`${a!.url}/v1/subscriptions/${sub.id}`, { headers: AUTH })).json()) as {
          counts: { queued: number; received: number; interpreted: number };
        };
        if (s.counts.queued === 0 && s.counts.interpreted > 0) return s;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('the holder never drained its queue');
    };
    const settled = await settle();
    expect(settled.counts.received).toBe(20);
    const down = await fetch(`${b!.url}/v1/subscriptions/${sub.id}`, { method: 'DELETE', headers: AUTH });
    const summary = (await down.json()) as { state: string; teardown?: string };
    expect(down.status, JSON.stringify(summary)).toBe(200);
    expect(summary.state).toBe('closed');
    const text = await reading;
    expect(text).toContain('event: emission');
    expect(text).toContain('The stream moved.');
    const journal = await runCliAsync([
      'journal',
      '--home',
      fx.home,
      '--store',
      url,
      '--type',
      'teardown',
      '--json',
    ]);
    const rows = (JSON.parse(journal.stdout) as { entries: { fields: Record<string, string> }[] }).entries;
    expect(rows.some((r) => r.fields.subscription === sub.id && r.fields.reason === 'request')).toBe(true);
  });

  it('Postgres away for 10 s: 503 with a clear error, then it recovers by itself', async () => {
    const url = await createDb('outage');
    const service = await serve(url, ['--lease', '2']);
    const before = await post(service.url, request('before'));
    expect(before.status).toBe(200);
    // One still running when the database goes: it must end completed once it is back.
    const long = fx.file('session-3s.yaml', script.replace(`delay_ms: ${SESSION_MS}`, 'delay_ms: 3000'));
    const inFlight = await post(
      service.url,
      { ...request('in flight'), substrate: `scripted:${long}` },
      { prefer: 'respond-async' },
    );
    expect(inFlight.status).toBe(202);
    await cluster.stop();
    const t0 = Date.now();
    const during = await post(service.url, request('during'));
    expect(during.status).toBe(503);
    const error = during.body.error as { code: string; message: string; fix: string };
    expect(error.code).toBe('STORE_UNAVAILABLE');
    expect(error.message).toMatch(/unreachable/);
    expect(error.fix).toMatch(/retry/);
    const health = await fetch(`${service.url}/v1/journal`, { headers: AUTH });
    expect(health.status).toBe(503);
    await new Promise((r) => setTimeout(r, Math.max(0, 10_000 - (Date.now() - t0))));
    await cluster.start();
    expect(service.child.exitCode, service.output()).toBeNull(); // it stayed up through the outage
    let after: Reply | undefined;
    for (let i = 0; i < 50; i++) {
      after = await post(service.url, request('after'));
      if (after.status === 200) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(after?.status).toBe(200);
    let landed: { state?: string; attempt?: number } = {};
    for (let i = 0; i < 300 && landed.state !== 'completed'; i++) {
      landed = (await (
        await fetch(`${service.url}/v1/invocations/${inFlight.body.id}`, { headers: AUTH })
      ).json()) as typeof landed;
      if (landed.state !== 'completed') await new Promise((r) => setTimeout(r, 200));
    }
    expect(landed.state).toBe('completed');
    console.log(
      `runtime-postgres: the invocation in flight through the outage completed at attempt ${landed.attempt}`,
    );
    const journal = await runCliAsync(['journal', '--home', fx.home, '--store', url, '--json']);
    const entries = (JSON.parse(journal.stdout) as { entries: { kind?: string }[] }).entries;
    // before, after, and the one in flight (once or, when its first end could not be written, twice)
    expect(entries.filter((e) => e.kind === 'session_end').length).toBeGreaterThanOrEqual(3);
  });
});
