import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, structured, tempHome, wireStdio } from '../helpers/index.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

type Hit = {
  name: string;
  type: string;
  file: string;
  excerpt: string;
  match: number;
  source?: string;
  session?: string | null;
  host?: string | null;
  time?: string;
  event?: string | null;
};
type Hits = { results: Hit[]; events_indexed?: number };

/** A host's PostToolUse hook, run as the host runs it (the built CLI, the payload on stdin). */
async function hook(dir: string, event: string, payload: Record<string, unknown>): Promise<string> {
  const r = await runCli(['hook', event, '--host', 'claude', '--home', dir], {
    input: JSON.stringify(payload),
    env: { FIRSTLIGHT_GATE_BYPASS: '1' },
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

function home(): string {
  const h = tempHome();
  cleanup.push(h.dispose);
  return h.dir;
}

async function cliRecall(dir: string, query: string, flags: string[] = []): Promise<Hits> {
  const r = await runCli(['recall', query, '--home', dir, '--json', ...flags]);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Hits;
}

describe('recall: common abbreviations (issue 39)', () => {
  it('finds "Alex prefers PRs under 300 lines" by "pull request length", through the CLI and over MCP', async () => {
    const dir = home();
    const wrote = await runCli(['remember', '--home', dir, '--type', 'feedback', '--name', 'pr-size'], {
      input: 'Alex prefers PRs under 300 lines',
    });
    expect(wrote.status, wrote.stderr).toBe(0);
    await runCli(['remember', '--home', dir, '--type', 'reference', '--name', 'cluster'], {
      input: 'The staging cluster runs on k8s; the env file lives in the repo root.',
    });

    const byCli = await cliRecall(dir, 'pull request length');
    expect(byCli.results[0]?.name).toBe('pr-size');
    expect(byCli.results[0]?.excerpt).toContain('PRs under 300 lines');
    expect((await cliRecall(dir, 'kubernetes environment repository')).results[0]?.name).toBe('cluster');

    const wired = await wireStdio(['serve', '--home', dir]);
    cleanup.push(wired.close);
    const result = await wired.client.callTool({
      name: 'recall',
      arguments: { query: 'pull request length' },
    });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    expect(structured<Hits>(result).results.map((r) => r.name)).toEqual(['pr-size']);
  });
});

describe('recall --source events: what past sessions did (issue 39)', () => {
  it("finds a past session's observation by its words, with its session, host and time, through the CLI and over MCP", async () => {
    const dir = home();
    // A past session: a host's hook records a tool call; the agent observes and reflects over MCP.
    await hook(dir, 'post-tool-use', {
      session_id: 'sess-gateway-1',
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'kubectl rollout restart deploy/payments-gateway' },
      tool_response: { stdout: 'deployment.apps/payments-gateway restarted', stderr: '' },
      tool_use_id: 'toolu_1',
    });
    const past = await wireStdio(['serve', '--home', dir]);
    cleanup.push(past.close);
    const observed = await past.client.callTool({
      name: 'reflect',
      arguments: { observation: 'The gateway pods were stuck on a stale TLS certificate', kind: 'internal' },
    });
    expect(observed.isError, JSON.stringify(observed)).toBeFalsy();
    await past.close();
    // A memory that shares a word, so `all` shows both sources.
    await runCli(['remember', '--home', dir, '--type', 'reference', '--name', 'gateway-owner'], {
      input: 'The payments gateway belongs to the platform team.',
    });

    const events = await cliRecall(dir, 'restart the payments gateway', ['--source', 'events']);
    const call = events.results.find((r) => r.type === 'tool_call');
    expect(call).toMatchObject({ source: 'events', session: 'sess-gateway-1', host: 'claude', name: 'Bash' });
    expect(events.results[0]).toBe(call);
    expect(call!.file).toMatch(/^events\/\d{4}-\d{2}-\d{2}\.jsonl$/);
    expect(call!.excerpt).toContain('payments-gateway restarted');
    expect(Date.parse(call!.time!)).toBeGreaterThan(Date.now() - 600_000);
    expect(call!.event).toMatch(/^ev_/);
    // The default stays memories only.
    expect(
      (await cliRecall(dir, 'restart the payments gateway')).results.every((r) => r.source === undefined),
    ).toBe(true);
    const both = await cliRecall(dir, 'payments gateway', ['--source', 'all', '--limit', '10']);
    expect(new Set(both.results.map((r) => r.source))).toEqual(new Set(['memory', 'events']));
    // Time filters: since/until, and a time phrase naming today.
    expect(
      (await cliRecall(dir, 'gateway', ['--source', 'events', '--until', '2020-01-01'])).results,
    ).toEqual([]);
    expect((await cliRecall(dir, 'gateway', ['--source', 'events', '--since', '1h'])).results.length).toBe(2);
    const today = new Date().toISOString().slice(0, 10);
    const phrased = await cliRecall(dir, `stale certificate ${today}`, ['--source', 'events']);
    expect(phrased.results[0]).toMatchObject({ type: 'reflection', host: null, match: 1 });
    expect((await cliRecall(dir, 'stale certificate 2020-01-01', ['--source', 'events'])).results).toEqual(
      [],
    );
    // Human output names the session, the host and the time.
    const text = await runCli(['recall', 'restart', 'gateway', '--source', 'events', '--home', dir]);
    expect(text.stdout).toMatch(/tool_call, \d{4}-\d{2}-\d{2}T[^,]+, host claude, session sess-gateway-1/);

    // Over MCP, as an agent in a later session asks.
    const later = await wireStdio(['serve', '--home', dir]);
    cleanup.push(later.close);
    const result = await later.client.callTool({
      name: 'recall',
      arguments: { query: 'stale TLS certificate', source: 'events', since: '7d' },
    });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    const hits = structured<Hits>(result);
    expect(hits.results[0]).toMatchObject({ type: 'reflection', source: 'events', host: null });
    expect(hits.results[0]!.excerpt).toContain('stale TLS certificate');
    expect(hits.events_indexed).toBe(2);
    const bad = await later.client.callTool({
      name: 'recall',
      arguments: { query: 'gateway', source: 'events', since: 'last tuesday' },
    });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain('since');
  });

  it('keeps the events index in cache/ and reads only what a day file gained since', async () => {
    const dir = home();
    const call = (command: string, stdout: string) =>
      hook(dir, 'post-tool-use', {
        session_id: 's2',
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_input: { command },
        tool_response: { stdout, stderr: '' },
      });
    await call('terraform plan -target=module.vault', 'Plan: 2 to add');
    expect((await cliRecall(dir, 'vault terraform', ['--source', 'events'])).results.length).toBe(1);
    expect(existsSync(join(dir, 'cache', 'parsed-recall-events.json'))).toBe(true);
    await call('helm upgrade ledger-api ./chart', 'Release "ledger-api" has been upgraded');
    const after = await cliRecall(dir, 'helm ledger upgraded', ['--source', 'events']);
    expect(after.results[0]?.excerpt).toContain('ledger-api');
    expect(after.events_indexed).toBe(2);
    // A day file replaced by hand (a line removed) is read again, not trusted.
    const day = join(dir, 'events', readdirSync(join(dir, 'events'))[0]!);
    writeFileSync(day, `${readFileSync(day, 'utf8').split('\n')[1]}\n`);
    const rewritten = await cliRecall(dir, 'vault terraform', ['--source', 'events']);
    expect(rewritten.results).toEqual([]);
    expect(rewritten.events_indexed).toBe(1);
  });
});
