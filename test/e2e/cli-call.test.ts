/**
 * `firstlight call`: the CLI as a small MCP client of our own servers, over stdio (it starts
 * `serve` or `repl serve` as a host would) and over HTTP; and install_capability's progress, as
 * MCP notifications to a real SDK client and as the CLI's progress line on a terminal.
 */
// biome-ignore lint/style/noRestrictedImports: only `script --version` runs synchronously (instant, at collection), never a long process
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI,
  exampleHomeCopy,
  REPO_ROOT,
  runCliAsync,
  startHttpServer,
  structured,
  tempDir,
  tempHome,
  waitFor,
  wireStdio,
} from '../helpers/index.js';

const TIMEOUT = 180_000;
const GATED_SERVER = join(REPO_ROOT, 'test', 'fixtures', 'repl', 'gated-server.mjs');

const cleanup: (() => void | Promise<void>)[] = [];
afterAll(async () => {
  for (const dispose of cleanup.splice(0).reverse()) await dispose();
});
function scratch(prefix = 'firstlight-call-'): string {
  const t = tempDir(prefix);
  cleanup.push(t.dispose);
  return t.dir;
}

const run = runCliAsync;

let home: string;
let project: string;
beforeAll(() => {
  const h = exampleHomeCopy();
  cleanup.push(h.dispose);
  home = h.dir;
  project = scratch('firstlight-call-project-');
  mkdirSync(join(project, '.git'));
});

describe('firstlight call over stdio (our own server, started as a host starts it)', {
  timeout: TIMEOUT,
}, () => {
  it('bootstrap_session: the packet, and a session recorded like any other', async () => {
    const r = await run(['call', 'bootstrap_session', '--home', home], { cwd: project });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const packet = JSON.parse(r.stdout);
    expect(packet).toMatchObject({ schema_version: 1, mind_contract_available: true });
    expect(Object.keys(packet)[0]).toBe('resumption');
    expect(readFileSync(join(home, 'sessions.jsonl'), 'utf8')).toContain('"at"');
    const json = JSON.parse(
      (await run(['call', 'bootstrap_session', '--home', home, '--json'], { cwd: project })).stdout,
    );
    expect(json).toMatchObject({ ok: true, tool: 'bootstrap_session', result: { schema_version: 1 } });
  });

  it('parses --arg values that look like JSON: a number for k, a list for tags', async () => {
    const recall = await run([
      'call',
      'recall',
      '--arg',
      'query=squash merges',
      '--arg',
      'k=1',
      '--home',
      home,
      '--json',
    ]);
    expect(recall.status, recall.stderr).toBe(0);
    expect(JSON.parse(recall.stdout).result.results).toHaveLength(1);
    const h = tempHome();
    cleanup.push(h.dispose);
    const remember = await run([
      'call',
      'remember',
      '--arg',
      'content=Alex prefers small PRs.',
      '--arg',
      'type=user',
      '--arg',
      'tags=["portal","review"]',
      '--home',
      h.dir,
      '--json',
    ]);
    expect(remember.status, remember.stderr).toBe(0);
    const file = JSON.parse(remember.stdout).result.file as string;
    expect(readFileSync(join(h.dir, 'memory', file), 'utf8')).toMatch(/tags:\s*\n?\s*-?\s*\[?"?portal/);
  });

  it('a mistyped tool suggests the right one and lists them; a tool error exits 1 in the one error shape', async () => {
    const typo = await run(['call', 'bootstrap_sesion', '--home', home]);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain('has no tool "bootstrap_sesion" (did you mean bootstrap_session?)');
    expect(typo.stderr).toMatch(/fix: its tools: bootstrap_session, .*recall/);
    const failed = await run(['call', 'read_memory_file', '--arg', 'name=nope.md', '--home', home, '--json']);
    expect(failed.status).toBe(1);
    const answer = JSON.parse(failed.stdout);
    expect(answer).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND', message: expect.stringContaining('read_memory_file') },
    });
    expect(Object.keys(answer.error).every((k) => ['code', 'message', 'fix'].includes(k))).toBe(true);
  });

  it('lists a server’s tools: the mind by default, the REPL with --server repl', async () => {
    const mind = await run(['call', '--home', home, '--json']);
    expect(JSON.parse(mind.stdout).tools.map((t: { name: string }) => t.name)).toContain('bootstrap_session');
    const repl = await run(['call', '--server', 'repl', '--home', home]);
    expect(repl.status, repl.stderr).toBe(0);
    expect(repl.stdout).toMatch(/8 tools\n {2}execute +Run Python code in the persistent REPL/);
  });

  it('the REPL’s tools go to the REPL server; the namespace carries from one call to the next', async () => {
    const h = tempHome();
    cleanup.push(h.dispose);
    const first = await run(['call', 'execute', '--arg', 'code=x = 20', '--home', h.dir], { cwd: project });
    expect(first.status, first.stderr).toBe(0);
    const second = await run(['call', 'execute', '--arg', 'code=x + 1', '--home', h.dir, '--json'], {
      cwd: project,
    });
    expect(second.status, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout).result).toMatchObject({ success: true, return_value: 21 });
  });
});

describe('firstlight call --http (a running server)', { timeout: TIMEOUT }, () => {
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  beforeAll(async () => {
    server = await startHttpServer(['--home', home]);
    cleanup.push(() => server.stop());
  });

  it('calls the server at the URL serve printed', async () => {
    const r = await run(['call', 'bootstrap_session', '--http', server.url, '--json']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result.mind_contract_available).toBe(true);
    const bad = await run(['call', 'bootstrap_session', '--http', 'not a url']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--http "not a url" is not a URL');
  });

  it('a URL without /mcp reached a server: it says what the server answered and the endpoint to use (issue 38)', async () => {
    const root = new URL(server.url).origin;
    const r = await run(['call', 'bootstrap_session', '--http', root, '--home', home]);
    expect(r.status).toBe(2);
    expect(r.stderr).not.toContain('could not reach');
    expect(r.stderr).toContain(`${root}/ answered 404: there is no MCP endpoint at /`);
    expect(r.stderr).toContain(`fix: our servers answer at /mcp: --http ${root}/mcp`);
  });
});

describe('firstlight call with no home (issue 38)', { timeout: TIMEOUT }, () => {
  it('says there is no home and how to make one, before starting a server', async () => {
    const missing = join(scratch(), 'nowhere');
    const r = await run(['call', 'bootstrap_session', '--home', missing]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `firstlight: no firstlight home at ${missing}\n  fix: run firstlight init --home ${missing} (or pass the --home of an existing home)\n`,
    );
    expect(existsSync(missing)).toBe(false);
  });
});

describe('install_capability reports progress while its server starts', { timeout: TIMEOUT }, () => {
  it('as MCP progress notifications to a client that asked for them', async () => {
    const h = tempHome();
    cleanup.push(h.dispose);
    const gate = join(scratch(), 'open');
    const wired = await wireStdio(['repl', 'serve', '--home', h.dir], { cwd: project });
    cleanup.push(wired.close);
    const seen: { progress: number; message?: string }[] = [];
    const installing = wired.client.callTool(
      {
        name: 'install_capability',
        arguments: {
          name: 'gated',
          command: process.execPath,
          args: [GATED_SERVER],
          env: { GATE_FILE: gate },
        },
      },
      undefined,
      { onprogress: (p) => seen.push(p), resetTimeoutOnProgress: true, timeout: 120_000 },
    );
    await waitFor('a progress notification', () => seen.length > 0, { timeoutMs: 60_000 });
    writeFileSync(gate, '');
    const result = structured<{ methods: string[] }>(await installing);
    expect(result.methods).toEqual(['ping']);
    expect(seen[0]?.message).toMatch(/^starting .*gated-server\.mjs \(\d+ s\)$/);
  });

  const hasScript = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!hasScript)(
    'as a progress line on the terminal running firstlight call (util-linux script gives it one)',
    async () => {
      const h = tempHome();
      cleanup.push(h.dispose);
      const gate = join(scratch(), 'open');
      const command = [
        process.execPath,
        CLI,
        'call',
        'install_capability',
        '--arg',
        'name=gated',
        '--arg',
        `command=${process.execPath}`,
        '--arg',
        `args=["${GATED_SERVER}"]`,
        '--arg',
        `env={"GATE_FILE":"${gate}"}`,
        '--home',
        h.dir,
      ]
        .map((w) => `'${w.replace(/'/g, `'\\''`)}'`)
        .join(' ');
      const child = spawn('script', ['-qec', command, '/dev/null'], {
        cwd: project,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let seen = '';
      child.stdout.on('data', (c: Buffer) => (seen += c.toString('utf8')));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      await waitFor('the progress line', () => /install_capability [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] starting /.test(seen), {
        timeoutMs: 60_000,
      });
      writeFileSync(gate, '');
      expect(await exited).toBe(0);
      expect(seen).toContain("Installed 'gated' with methods: ping");
      // The line is cleared before the answer is printed.
      expect(seen).toContain('\r\x1b[2K');
      expect(existsSync(join(h.dir, 'repl', 'states'))).toBe(true);
      expect(readdirSync(join(h.dir, 'repl', 'states')).some((f) => f.startsWith('autosave.'))).toBe(true);
    },
  );
});
