import { afterEach, describe, expect, it } from 'vitest';
import { runCli, structured, tempHome, wireStdio } from '../helpers/index.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

type Hits = { results: { name: string; file: string; excerpt: string; match: number }[] };

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
