import { existsSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { homePaths } from '../../src/core/index.js';
import { trustedRecall } from '../../src/mind/index.js';
import { exampleHomeCopy, runCli, structured, tempDir, wireStdio } from '../helpers/index.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

type Result = { query: string; results: { name: string; file: string; score: number; excerpt: string }[] };

const QUERIES: [string, string[]][] = [
  ['rollback deploy', []],
  ['deployments', ['--limit', '10']],
  ['kiwi3 ledger', ['--limit', '3']],
  ['ledgr', ['--limit', '10']],
  ['rollback', ['--facet', 'type:feedback', '--limit', '10']],
  ['what happened in early October', ['--limit', '10']],
];

/** `--limit N` and `--facet F` as the recall tool's arguments. */
function toolArgs(query: string, flags: string[]): Record<string, unknown> {
  const args: Record<string, unknown> = { query };
  for (let i = 0; i < flags.length; i += 2) {
    if (flags[i] === '--limit') args.k = Number(flags[i + 1]);
    if (flags[i] === '--facet') args.facet = flags[i + 1];
  }
  return args;
}

describe('one-shot `firstlight recall` (built CLI) against the mind server over MCP', () => {
  it('answers as the server does from the stamped index, and sees another process’s writes and an edit in place', async () => {
    const h = exampleHomeCopy();
    cleanup.push(h.dispose);
    const memory = join(h.dir, 'memory');
    for (let i = 0; i < 300; i++) {
      writeFileSync(
        join(memory, `note_gen_${i}.md`),
        `---\nname: "Ledger note ${i}"\ntype: "${i % 3 === 0 ? 'feedback' : 'note'}"\ndescription: "kiwi${i % 11} ledger and deploy${i % 5}"\ndate: 2026-10-${String(1 + (i % 28)).padStart(2, '0')}\n---\nThe ledger ${i} mentions deployments, a rollback and word${i}.\n`,
      );
    }
    // Outside the racy window, so the first recall's long way stamps what it saved.
    const past = new Date(Date.now() - 2000);
    utimesSync(memory, past, past);
    // Outside any project: both answer with the global memories.
    const cwd = tempDir();
    cleanup.push(cwd.dispose);
    const cli = async (query: string, flags: string[]) => {
      const r = await runCli(['recall', query, '--home', h.dir, '--json', ...flags], { cwd: cwd.dir });
      expect(r.status, r.stderr).toBe(0);
      const { ok, ...result } = JSON.parse(r.stdout) as Result & { ok: boolean };
      expect(ok).toBe(true);
      return result;
    };
    await cli('ledger', []);
    expect(existsSync(join(h.dir, 'cache', 'recall-index.stamp'))).toBe(true);
    expect(trustedRecall(homePaths(h.dir), 'ledger', {})).toBeDefined();

    const startServer = async () => {
      const wired = await wireStdio(['serve', '--home', h.dir], { cwd: cwd.dir });
      cleanup.push(wired.close);
      return wired;
    };
    let wired = await startServer();
    const server = async (query: string, flags: string[]) =>
      structured<Result>(await wired.client.callTool({ name: 'recall', arguments: toolArgs(query, flags) }));
    for (const [query, flags] of QUERIES)
      expect(await cli(query, flags), query).toEqual(await server(query, flags));

    // Another process remembers: the next one-shot recall has it.
    const remembered = await runCli(
      ['remember', '--home', h.dir, '--type', 'reference', '--name', 'Quokka ledger'],
      {
        input: 'The quokka ledger lives in the billing cluster.',
        cwd: cwd.dir,
      },
    );
    expect(remembered.status, remembered.stderr).toBe(0);
    expect((await cli('quokka', [])).results[0]?.name).toBe('Quokka ledger');

    // An edit in place (memory/'s mtime does not move) to a memory the query finds.
    const edited = join(memory, 'note_gen_7.md');
    writeFileSync(
      edited,
      '---\nname: "Ledger note 7"\ntype: "note"\n---\nNow the ledger 7 is about persimmons and the ledger.\n',
    );
    const found = await cli('ledger 7', ['--limit', '5']);
    expect(found.results.find((r) => r.file === 'note_gen_7.md')?.excerpt).toMatch(/persimmons/);
    // A server started now answers alike. (The first one has these changes too, through its
    // watcher, but its index still counts the replaced version's postings in a term's document
    // frequency until it is rebuilt: its scores may differ in the last digit.)
    await wired.close();
    wired = await startServer();
    for (const [query, flags] of [...QUERIES, ['quokka ledger', []] as [string, string[]]])
      expect(await cli(query, flags), query).toEqual(await server(query, flags));
  });
});
