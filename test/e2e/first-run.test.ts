/**
 * A new user's first run, on a fresh HOME, through the built CLI: `init` makes their own mind,
 * a mistyped home is an error that creates nothing, `doctor` records no session, commands find
 * the project root from a subdirectory, and install keeps the user's config bytes.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { autosaveNameFor } from '../../src/repl/index.js';
import { CLI, REPO_ROOT, run, runCli, structured, tempDir, wireStdio } from '../helpers/index.js';

/** Names and phrases only the bundled example persona and its memories use. */
const EXAMPLE_PEOPLE = ['Wren', 'Alex', 'Rivera', 'Sam Okafor', 'portal', 'worked with this team for months'];

let user: { dir: string; dispose: () => void };
let env: NodeJS.ProcessEnv;
let home: string;

beforeAll(() => {
  user = tempDir('firstlight-first-run-');
  // A fresh HOME: the default home is ~/.firstlight inside it, nothing of the real user's.
  env = { HOME: user.dir, FIRSTLIGHT_HOME: '' };
  home = join(user.dir, '.firstlight');
});
afterAll(() => user.dispose());

const cli = (args: string[], options: { cwd?: string; input?: string } = {}) =>
  runCli(args, {
    env,
    cwd: options.cwd ?? user.dir,
    ...(options.input ? { input: options.input } : {}),
  });

/** Every file under `dir` with its bytes. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[p.slice(dir.length + 1)] = readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

describe('firstlight init without a terminal', () => {
  it('takes the flags: a persona with the given name and an empty memory (only the index)', async () => {
    const r = await cli([
      'init',
      '--name',
      'Kestrel',
      '--user',
      'Ada Lovelace, data engineer on the billing team',
      '--style',
      'Short answers; tests before code.',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`home ready at ${home} (persona Kestrel)`);
    expect(r.stdout).toContain('firstlight install claude');
    expect(readdirSync(join(home, 'memory'))).toEqual(['MEMORY.md']);
    const persona = readFileSync(join(home, 'persona', 'agent_system.md'), 'utf8');
    expect(persona).toContain('You are Kestrel');
    expect(persona).toContain('Ada Lovelace, data engineer on the billing team');
    expect(persona).toContain('Short answers; tests before code.');
    for (const name of EXAMPLE_PEOPLE) expect(persona).not.toContain(name);
  });

  it('the packet is Kestrel with zero memories and names no example person', async () => {
    const r = await cli(['packet']);
    expect(r.status, r.stderr).toBe(0);
    const packet = JSON.parse(r.stdout);
    expect(packet.mind_contract_available).toBe(true);
    expect(packet.mind_contract).toContain('You are Kestrel');
    // The index is the only file: no memory at all.
    expect(packet.memory_catalog.category_counts).toEqual({ index: 1 });
    expect(packet.context.people).toEqual([]);
    const markdown = (await cli(['packet', '--format', 'markdown'])).stdout;
    for (const name of EXAMPLE_PEOPLE) {
      expect(r.stdout).not.toContain(name);
      expect(markdown).not.toContain(name);
    }
  });

  it('refuses a non-empty home; --example gives the demo elsewhere; bad usage exits 2', async () => {
    expect((await cli(['init'])).status).toBe(2);
    const demo = join(user.dir, 'demo-home');
    const r = await cli(['init', '--example', '--home', demo]);
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(demo, 'persona', 'agent_system.md'), 'utf8')).toContain('Wren');
    expect((await cli(['init', '--example', '--name', 'X', '--home', join(user.dir, 'x')])).status).toBe(2);
    expect(existsSync(join(user.dir, 'x'))).toBe(false);
  });
});

// util-linux `script` gives init a terminal, as a person typing the command has.
const hasScript = (await run('script', ['--version'])).status === 0;

describe('firstlight init in a terminal', () => {
  it.skipIf(!hasScript)('asks the three questions; Enter keeps a default', async () => {
    const dir = join(user.dir, 'asked-home');
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} init --home ${JSON.stringify(dir)}`;
    const child = spawn('script', ['-qc', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const answers: [string, string][] = [
      ["persona's name", 'Osprey'],
      ['Who are you', 'Grace, compiler engineer'],
      ['How do you like to work', ''],
    ];
    let seen = '';
    const code = await new Promise<number | null>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const next = answers[0];
        if (next && seen.includes(next[0])) {
          answers.shift();
          child.stdin.write(`${next[1]}\r`);
        }
      });
      child.on('exit', resolve);
    });
    expect(code, seen).toBe(0);
    expect(seen).toContain('[Firstlight]');
    const persona = readFileSync(join(dir, 'persona', 'agent_system.md'), 'utf8');
    expect(persona).toContain('You are Osprey');
    expect(persona).toContain('Grace, compiler engineer');
    expect(persona).toContain('Ask before anything destructive.');
  });
});

describe('a home that does not exist', () => {
  it('packet --home /nonexistent exits 1 with the fix and creates nothing', async () => {
    const existed = existsSync('/nonexistent');
    const r = await cli(['packet', '--home', '/nonexistent']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no firstlight home at /nonexistent');
    expect(r.stderr).toContain('fix: run firstlight init --home /nonexistent');
    expect(existsSync('/nonexistent')).toBe(existed);
  });

  it('every command but init says so (JSON under --json) and creates nothing; hooks fail open, the gate still gates', async () => {
    const missing = join(user.dir, 'typo', 'home');
    const project = join(user.dir, 'typo-project');
    mkdirSync(join(project, '.git'), { recursive: true });
    const runs: [string[], string?][] = [
      [['remember', '--type', 'note', '--home', missing], 'a note'],
      [['recall', 'anything', '--home', missing]],
      [['internalize', '--tail', 'last words', '--home', missing]],
      [['taskspace', '--home', missing]],
      [['serve', '--home', missing]],
      [['repl', 'serve', '--home', missing]],
      [['install', 'claude', '--home', missing]],
      [['doctor', '--home', missing]],
    ];
    for (const [args, input] of runs) {
      const r = await cli(args, { cwd: project, ...(input ? { input } : {}) });
      expect(r.status, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toContain(`run firstlight init --home ${missing}`);
    }
    const json = await cli(['recall', 'x', '--home', missing, '--json']);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      ok: false,
      error: {
        code: 'HOME_NOT_FOUND',
        message: `no firstlight home at ${missing}`,
        fix: expect.stringContaining(`run firstlight init --home ${missing}`),
      },
    });
    // A hook must not break its host: SessionStart and Stop say why on stderr and exit 0.
    const start = await cli(['hook', 'session-start', '--home', missing], {
      input: JSON.stringify({ session_id: 's1', source: 'startup', cwd: project }),
    });
    expect(start.status).toBe(0);
    expect(start.stdout).toBe('');
    expect(start.stderr).toContain(`run firstlight init --home ${missing}`);
    const stop = await cli(['hook', 'stop', '--home', missing], {
      input: JSON.stringify({ session_id: 's1' }),
    });
    expect(stop.status).toBe(0);
    // The gate keeps gating (no bootstrap can succeed without a mind) and names the fix.
    const gate = await cli(['hook', 'pre-tool-use', '--host', 'claude', '--home', missing], {
      input: JSON.stringify({
        session_id: 's1',
        transcript_path: join(REPO_ROOT, 'test', 'fixtures', 'transcripts', 'no-result.jsonl'),
        tool_name: 'Bash',
        tool_input: {},
      }),
    });
    const decision = JSON.parse(gate.stdout).hookSpecificOutput;
    expect(decision.permissionDecision).toBe('deny');
    expect(decision.permissionDecisionReason).toContain(`run firstlight init --home ${missing}`);
    expect(existsSync(join(user.dir, 'typo'))).toBe(false);
    expect(readdirSync(project)).toEqual(['.git']);
  });
});

describe('doctor, the project root, and the user’s bytes', () => {
  let repo: { dir: string; dispose: () => void };
  beforeAll(() => {
    repo = tempDir('firstlight-first-run-repo-');
    mkdirSync(join(repo.dir, '.git'));
    mkdirSync(join(repo.dir, 'src', 'deep'), { recursive: true });
  });
  afterAll(() => repo.dispose());

  it('from a subdirectory of a git project, install claude writes at the root and says which root', async () => {
    const sub = join(repo.dir, 'src', 'deep');
    const r = await cli(['install', 'claude'], { cwd: sub });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Project root: ${repo.dir} (the nearest directory up from here with a .git`);
    expect(readdirSync(sub)).toEqual([]);
    for (const file of ['CLAUDE.md', '.mcp.json', '.claude/settings.json'])
      expect(existsSync(join(repo.dir, file)), file).toBe(true);
    // The manifest names the project's files relative to the project.
    // firstlight is not on PATH here, so the hooks name this machine's node and package path:
    // they go to the uncommitted .claude/settings.local.json, and the shared file holds none.
    const manifest = JSON.parse(readFileSync(join(repo.dir, '.firstlight', 'install-manifest.json'), 'utf8'));
    expect(Object.keys(manifest.files).sort()).toEqual([
      '.claude/settings.json',
      '.claude/settings.local.json',
      '.mcp.json',
      'AGENTS.md',
      'CLAUDE.md',
    ]);
    const shared = JSON.parse(readFileSync(join(repo.dir, '.claude', 'settings.json'), 'utf8'));
    expect(shared.hooks).toBeUndefined();
    const local = JSON.parse(readFileSync(join(repo.dir, '.claude', 'settings.local.json'), 'utf8'));
    expect(JSON.stringify(local.hooks.PreToolUse)).toContain('hook.cjs pre-tool-use');
  });

  it('doctor finds it there from another subdirectory, passes, and leaves the session log byte for byte', async () => {
    // A real session first, so there is a log to keep.
    const server = await wireStdio(['serve'], { env: env as Record<string, string>, cwd: repo.dir });
    await server.client.callTool({ name: 'bootstrap_session', arguments: { session_id: 'first-run-1' } });
    await server.close();
    const sessions = () =>
      Object.fromEntries(
        readdirSync(home)
          .filter((f) => f.startsWith('sessions'))
          .map((f) => [f, readFileSync(join(home, f), 'utf8')]),
      );
    const before = sessions();
    expect(Object.keys(before)).toContain('sessions.jsonl');
    const r = await cli(['doctor', '--json'], { cwd: join(repo.dir, 'src') });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.project).toBe(repo.dir);
    expect(report.project_found).toBe('marker');
    expect(report.hosts.map((h: { host: string }) => h.host)).toEqual(['claude']);
    expect(sessions()).toEqual(before);
    // Nor does the next packet hear of a session "moments ago" from doctor.
    const packet = JSON.parse((await cli(['packet', '--session-id', 'first-run-2'])).stdout);
    expect(JSON.stringify(packet.context)).not.toContain('firstlight-doctor');
  });

  it('a commented .vscode/mcp.json and a one-line .mcp.json keep their bytes through install and come back on uninstall', async () => {
    const project = tempDir('firstlight-first-run-bytes-');
    try {
      const vscode = [
        '// Team MCP servers. Keep this list short.',
        '{',
        '  "servers": {',
        '    /* the database, read-only */',
        '    "db": { "command": "db-mcp", "args": ["--read-only"] }, // trailing comma next',
        '  },',
        '}',
        '',
      ].join('\n');
      const oneLine = '{"mcpServers":{"db":{"command":"db-mcp"}}}';
      const gitignore = 'node_modules/\n*.log';
      mkdirSync(join(project.dir, '.vscode'));
      mkdirSync(join(project.dir, '.git'));
      writeFileSync(join(project.dir, '.vscode', 'mcp.json'), vscode);
      writeFileSync(join(project.dir, '.mcp.json'), oneLine);
      writeFileSync(join(project.dir, '.gitignore'), gitignore);
      const before = snapshot(project.dir);

      for (const host of ['claude', 'vscode']) {
        const r = await cli(['install', host, '--with-repl'], { cwd: project.dir });
        expect(r.status, r.stderr).toBe(0);
      }
      const vscodeAfter = readFileSync(join(project.dir, '.vscode', 'mcp.json'), 'utf8');
      for (const line of vscode.split('\n').filter((l) => l.includes('//') || l.includes('/*')))
        expect(vscodeAfter).toContain(line.trim().startsWith('"db"') ? '// trailing comma next' : line);
      expect(vscodeAfter).toContain('"firstlight"');
      expect(vscodeAfter).toContain('"firstlight-repl"');
      const mcpAfter = readFileSync(join(project.dir, '.mcp.json'), 'utf8');
      expect(mcpAfter.startsWith('{"mcpServers":{"db":{"command":"db-mcp"}')).toBe(true);
      expect(mcpAfter).not.toContain('\n');
      const servers = JSON.parse(mcpAfter).mcpServers;
      expect(servers['firstlight-repl'].args.slice(-2)).toEqual(['repl', 'serve']);
      expect(readFileSync(join(project.dir, '.gitignore'), 'utf8')).toBe(`${gitignore}\n.firstlight/\n`);
      const doctor = await cli(['doctor', '--json'], { cwd: project.dir });
      expect(doctor.status, doctor.stdout).toBe(0);

      for (const host of ['vscode', 'claude']) {
        const r = await cli(['uninstall', host], { cwd: project.dir });
        expect(r.status, r.stderr).toBe(0);
      }
      expect(snapshot(project.dir)).toEqual(before);
      expect(existsSync(join(project.dir, '.firstlight'))).toBe(false);
    } finally {
      project.dispose();
    }
  });

  it('a .gitignore that already ignores .firstlight/ is left alone, on install and on uninstall', async () => {
    const project = tempDir('firstlight-first-run-ignore-');
    try {
      mkdirSync(join(project.dir, '.git'));
      writeFileSync(join(project.dir, '.gitignore'), '/.firstlight\n');
      expect((await cli(['install', 'claude'], { cwd: project.dir })).status).toBe(0);
      expect(readFileSync(join(project.dir, '.gitignore'), 'utf8')).toBe('/.firstlight\n');
      expect((await cli(['uninstall', 'claude'], { cwd: project.dir })).status).toBe(0);
      expect(readFileSync(join(project.dir, '.gitignore'), 'utf8')).toBe('/.firstlight\n');
    } finally {
      project.dispose();
    }
  });
});

describe('the REPL beside the mind', () => {
  it('install --with-repl registers a REPL server that starts; its autosave is per project', async () => {
    const a = tempDir('firstlight-first-run-repl-a-');
    const b = tempDir('firstlight-first-run-repl-b-');
    try {
      for (const p of [a.dir, b.dir]) mkdirSync(join(p, '.git'));
      expect((await cli(['install', 'claude', '--with-repl'], { cwd: a.dir })).status).toBe(0);
      const entry = JSON.parse(readFileSync(join(a.dir, '.mcp.json'), 'utf8')).mcpServers['firstlight-repl'];
      const start = async (cwd: string) =>
        wireStdio([...entry.args.slice(1)], { env: env as Record<string, string>, cwd });
      const execute = async (w: Awaited<ReturnType<typeof start>>, code: string) =>
        structured<{ return_value: unknown; error_type: string | null }>(
          await w.client.callTool({ name: 'execute', arguments: { code } }),
        );
      // Started from the config's own command, in project A: define something, then close (autosave).
      const first = await start(join(a.dir));
      await execute(first, 'kept_in_a = 41 + 1');
      await first.close();
      expect(existsSync(join(home, 'repl', 'states', `${autosaveNameFor(a.dir)}.json`))).toBe(true);
      // Project B does not get A's namespace back.
      const other = await start(b.dir);
      expect((await execute(other, 'kept_in_a')).error_type).toBe('NameError');
      await other.close();
      // Project A does.
      const again = await start(a.dir);
      expect((await execute(again, 'kept_in_a')).return_value).toBe(42);
      await again.close();
    } finally {
      a.dispose();
      b.dispose();
    }
  }, 120_000);
});
