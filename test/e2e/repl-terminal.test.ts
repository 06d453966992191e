/**
 * The REPL from a terminal: `firstlight repl` driven through tmux as a person types at it
 * (define a function, interrupt a loop with Ctrl-C, use the function, quit, start again and find
 * it), `repl exec`, `repl capability add|list|remove` with a real backend server from npm, and
 * what `repl serve` says to a person.
 */
// biome-ignore lint/style/noRestrictedImports: tmux's client commands (send-keys, capture-pane) answer in milliseconds; the REPL runs asynchronously inside tmux
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT, runCliAsync, tempDir, tempHome, waitFor } from '../helpers/index.js';

const TIMEOUT = 240_000;
const MEMORY_SERVER = join(REPO_ROOT, 'node_modules', '.bin', 'mcp-server-memory');

const cleanup: (() => void | Promise<void>)[] = [];
afterAll(async () => {
  for (const dispose of cleanup.splice(0).reverse()) await dispose();
});

function project(): string {
  const t = tempDir('firstlight-repl-term-project-');
  cleanup.push(t.dispose);
  mkdirSync(join(t.dir, '.git'));
  return t.dir;
}

function home(): string {
  const t = tempHome('firstlight-repl-term-home-');
  cleanup.push(t.dispose);
  return t.dir;
}

const run = runCliAsync;

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (!hasTmux) {
  process.stderr.write(
    'repl-terminal: tmux is not installed (apt-get install tmux; .ci/run installs it): the interactive `firstlight repl` test is skipped\n',
  );
}

/** One tmux server of our own (its own socket), so nothing else on the machine is touched. */
class Tmux {
  private readonly socket = `firstlight-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

  tmux(...args: string[]): string {
    const r = spawnSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8', timeout: 10_000 });
    if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  }

  /** Starts `firstlight repl` in a window; the pane stays after it exits and says its code. */
  start(name: string, cwd: string, env: Record<string, string>): void {
    const vars = Object.entries(env).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    const command = `env ${vars.join(' ')} ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} repl; echo "[exited $?]"; exec cat`;
    this.tmux('new-session', '-d', '-s', name, '-x', '150', '-y', '50', '-c', cwd, command);
  }

  keys(name: string, ...keys: string[]): void {
    this.tmux('send-keys', '-t', name, ...keys);
  }

  /** Types a line as a person does, then Enter. */
  line(name: string, text: string): void {
    this.tmux('send-keys', '-t', name, '-l', text);
    this.tmux('send-keys', '-t', name, 'Enter');
  }

  pane(name: string): string {
    return this.tmux('capture-pane', '-p', '-t', name, '-S', '-500');
  }

  /** Waits until the pane's text matches; fails with the pane in the message. */
  async until(name: string, what: string, test: (text: string) => boolean): Promise<string> {
    try {
      return await waitFor(
        what,
        () => {
          const text = this.pane(name);
          return test(text) ? text : undefined;
        },
        { timeoutMs: 90_000, intervalMs: 100 },
      );
    } catch (error) {
      throw new Error(`${(error as Error).message}; the pane shows:\n${this.pane(name)}`);
    }
  }

  kill(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
  }
}

describe.skipIf(!hasTmux)('firstlight repl at a terminal (tmux)', { timeout: TIMEOUT }, () => {
  const tmux = new Tmux();
  afterAll(() => tmux.kill());

  it('defines a function, interrupts a loop with Ctrl-C, uses the function, quits; started again, finds it', async () => {
    const dir = project();
    const h = home();
    const env = { FIRSTLIGHT_HOME: h, HOME: h };
    const marker = join(dir, 'loop-started');

    tmux.start('first', dir, env);
    await tmux.until('first', 'the first prompt', (t) => /\n>>>\s*$/.test(t));
    expect(tmux.pane('first')).toContain('firstlight repl: Python (stdlib kernel) in');

    tmux.line('first', 'def double(x):');
    await tmux.until('first', 'the continuation prompt', (t) => t.includes('>>> def double(x):\n...'));
    tmux.line('first', '    return 2 * x');
    tmux.line('first', '');
    await tmux.until('first', 'the function defined', (t) =>
      /\.\.\. {5}return 2 \* x\n\.\.\.\n>>>\s*$/.test(t),
    );

    tmux.line('first', 'double(4)');
    await tmux.until('first', 'double(4)', (t) => t.includes('>>> double(4)\n8\n>>>'));

    // A loop that says it started (a file appears), so Ctrl-C is sent while it runs, not before.
    tmux.line('first', `import pathlib; marker = pathlib.Path(${JSON.stringify(marker)})`);
    await tmux.until('first', 'the import', (t) => /marker = pathlib\.Path\(.*\)\n>>>\s*$/.test(t));
    tmux.line('first', 'while True: marker.touch()');
    await waitFor('the loop to start', () => existsSync(marker), { timeoutMs: 60_000 });
    tmux.keys('first', 'C-c');
    await tmux.until('first', 'KeyboardInterrupt and a new prompt', (t) =>
      /KeyboardInterrupt\n>>>\s*$/.test(t),
    );

    tmux.line('first', 'double(21)');
    await tmux.until('first', 'double(21) after the interrupt', (t) => t.includes('>>> double(21)\n42\n>>>'));

    tmux.line('first', 'exit()');
    const closing = await tmux.until('first', 'the exit', (t) => t.includes('[exited 0]'));
    expect(closing).toMatch(/State saved to autosave\..+\.json/);
    // Every line typed is in the history, for the next session's up-arrow.
    expect(readFileSync(join(h, 'repl', 'history'), 'utf8')).toContain('def double(x):\n    return 2 * x\n');

    tmux.start('second', dir, env);
    const restored = await tmux.until('second', 'the second prompt', (t) => /\n>>>\s*$/.test(t));
    expect(restored).toMatch(/Restored state "autosave\.[^"]+".*double/);
    tmux.line('second', 'double(5)');
    await tmux.until('second', 'double(5) in the new session', (t) => t.includes('>>> double(5)\n10\n>>>'));
    tmux.keys('second', 'C-d');
    await tmux.until('second', 'the exit on Ctrl-D', (t) => t.includes('[exited 0]'));
  });
});

describe('firstlight repl exec', { timeout: TIMEOUT }, () => {
  it('runs one cell; the namespace carries to the next exec in the project; a raise exits 1', async () => {
    const dir = project();
    const h = home();
    const first = await run(['repl', 'exec', 'x = 21', '--home', h], { cwd: dir });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toBe('');
    const second = await run(['repl', 'exec', 'x * 2', '--home', h], { cwd: dir });
    expect(second.stdout).toBe('42\n');
    // Python's repr, as Jupyter shows a value: a tuple stays a tuple, a string keeps its quotes (issue 38).
    const tuple = await run(['repl', 'exec', '(1, 2)', '--home', h], { cwd: dir });
    expect(tuple.stdout).toBe('(1, 2)\n');
    expect((await run(['repl', 'exec', '(x, "a")', '--home', h], { cwd: dir })).stdout).toBe("(21, 'a')\n");
    const piped = await run(['repl', 'exec', '-', '--home', h, '--json'], {
      cwd: dir,
      input: 'import sys\nprint("from stdin")\n[x, None, True]\n',
    });
    const answer = JSON.parse(piped.stdout);
    expect(answer).toMatchObject({
      ok: true,
      success: true,
      stdout: 'from stdin\n',
      return_value: [21, null, true],
    });
    const failing = await run(['repl', 'exec', '1/0', '--home', h], { cwd: dir });
    expect(failing.status).toBe(1);
    expect(failing.stderr).toContain('ZeroDivisionError: division by zero');
    const json = JSON.parse((await run(['repl', 'exec', '1/0', '--home', h, '--json'], { cwd: dir })).stdout);
    expect(json).toMatchObject({
      ok: false,
      error: { code: 'ZeroDivisionError', message: 'division by zero' },
    });
    const none = await run(['repl', 'exec', '--home', h], { cwd: dir });
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('no code to run');
  });
});

describe('firstlight repl capability', { timeout: TIMEOUT }, () => {
  it('adds a real MCP server, lists it, every repl in the project has it, removes it', async () => {
    const dir = project();
    const h = home();
    const graph = join(dir, 'memory.jsonl');
    const add = await run(
      [
        'repl',
        'capability',
        'add',
        'mem',
        '--env',
        `MEMORY_FILE_PATH=${graph}`,
        '--home',
        h,
        '--',
        MEMORY_SERVER,
      ],
      { cwd: dir },
    );
    expect(add.status, add.stderr).toBe(0);
    expect(add.stdout).toMatch(/Installed 'mem' with methods: .*create_entities/);
    expect(add.stdout).toContain('every firstlight repl in this project (and repl serve) starts with it');

    const list = await run(['repl', 'capability', 'list', '--home', h, '--json'], { cwd: dir });
    expect(JSON.parse(list.stdout)).toMatchObject({
      ok: true,
      capabilities: [{ name: 'mem', command: MEMORY_SERVER, env: ['MEMORY_FILE_PATH'] }],
    });

    const used = await run(
      [
        'repl',
        'exec',
        'mem.create_entities(entities=[{"name": "Ada", "entityType": "person", "observations": ["likes tests"]}])\nlen(mem.read_graph()["entities"])',
        '--home',
        h,
      ],
      { cwd: dir },
    );
    expect(used.status, used.stderr).toBe(0);
    expect(used.stdout.trim().split('\n').at(-1)).toBe('1');
    expect(readFileSync(graph, 'utf8')).toContain('"Ada"');

    const typo = await run(['repl', 'capability', 'remove', 'memm', '--home', h], { cwd: dir });
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain('(did you mean mem?)');
    const remove = await run(['repl', 'capability', 'rm', 'mem', '--home', h], { cwd: dir });
    expect(remove.status, remove.stderr).toBe(0);
    expect(remove.stdout).toContain("Uninstalled 'mem' and stopped its server");
    const empty = await run(['repl', 'capability', 'list', '--home', h], { cwd: dir });
    expect(empty.stdout).toContain('no capabilities saved for');
  });
});

describe('firstlight repl serve, to a person', { timeout: TIMEOUT }, () => {
  const hasScript = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!hasScript)(
    'in a terminal, says on stderr what it waits for (stdout stays the protocol)',
    async () => {
      const h = home();
      const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} repl serve --home ${JSON.stringify(h)} 2>&1 >/dev/null`;
      const child = spawn('script', ['-qc', command, '/dev/null'], {
        cwd: project(),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let seen = '';
      child.stdout.on('data', (c: Buffer) => (seen += c.toString('utf8')));
      const exited = new Promise((resolve) => child.on('close', resolve));
      await waitFor('the notice', () => seen.includes('Ctrl-C to stop'), { timeoutMs: 60_000 });
      expect(seen).toContain('over stdio: it waits for an MCP client');
      // Not installed here: the notice says how to run it from where it is (issue 38).
      expect(seen).toContain(`node ${CLI} repl serve --http`);
      child.kill('SIGTERM');
      await exited;
    },
  );

  it('over HTTP, prints the endpoint, a client config for "firstlight-repl" and a firstlight call line', async () => {
    const h = home();
    const child = spawn(process.execPath, [CLI, 'repl', 'serve', '--http', '--port', '0', '--home', h], {
      cwd: project(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const exited = new Promise((resolve) => child.on('close', resolve));
    await waitFor('the banner', () => out.includes('Ctrl-C to stop'), { timeoutMs: 60_000 });
    const url = /MCP endpoint: (\S+)/.exec(out)?.[1];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    // It runs code: a token generated at start, printed in the config, kept in the home's run/.
    const token = /^ {2}Token: (\S+)$/m.exec(out)?.[1];
    expect(token).toMatch(/^[\w-]{32}$/);
    const config = JSON.parse(/(\{\n[\s\S]*?\n\})\n/.exec(out)?.[1] ?? '{}');
    expect(config).toEqual({
      mcpServers: {
        'firstlight-repl': { type: 'http', url, headers: { Authorization: `Bearer ${token}` } },
      },
    });
    expect(out).toContain(`Try it: node ${CLI} call execute --arg code='1+1' --home ${h} --http ${url}`);
    const called = await run(['call', 'execute', '--arg', 'code=6*7', '--home', h, '--http', url!, '--json']);
    expect(JSON.parse(called.stdout).result.return_value).toBe(42);
    child.kill('SIGTERM');
    await exited;
  });
});
