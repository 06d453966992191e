import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { autosaveNameFor } from '../../src/repl/index.js';
import {
  CLI,
  ceilingFrom,
  REPO_ROOT,
  structured,
  tempDir,
  tempHome,
  textOf,
  type Wired,
} from '../helpers/index.js';
import type { Exec } from './repl-procs.js';
import { childrenOf, gone, waitGone } from './repl-procs.js';
import { parentOf, type ReplVariant, SUITE, serveArgs, VARIANTS, wireRepl } from './repl-variants.js';

const BIN = join(REPO_ROOT, 'node_modules', '.bin');

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A home (the REPL refuses one that does not exist). */
function homeDir(prefix: string): string {
  const t = tempHome(prefix);
  cleanups.push(t.dispose);
  return t.dir;
}

/** The autosave of a harness started from the repo (one per project). */
const AUTOSAVE_FILE = `${autosaveNameFor(REPO_ROOT)}.json`;

function dir(prefix: string): string {
  const t = tempDir(prefix);
  cleanups.push(t.dispose);
  return t.dir;
}

async function harness(variant: ReplVariant, cwd?: string): Promise<Wired> {
  const wired = await wireRepl(variant, ['--home', homeDir('firstlight-repl-home-')], cwd ? { cwd } : {});
  cleanups.push(wired.close);
  return wired;
}

/** Bare JSON-RPC over a harness's stdio, for tests that must control its stdin themselves. */
function jsonRpc(child: ChildProcess) {
  // biome-ignore lint/suspicious/noExplicitAny: raw protocol messages
  const waiting = new Map<number, (result: any) => void>();
  let buffered = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      const message = JSON.parse(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      waiting.get(message.id)?.(message.result);
      newline = buffered.indexOf('\n');
    }
  });
  let next = 1;
  return {
    // biome-ignore lint/suspicious/noExplicitAny: raw protocol messages
    request(method: string, params: unknown): Promise<any> {
      const id = next++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    },
    notify(method: string): void {
      child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
    },
  };
}

async function call(w: Wired, name: string, args: Record<string, unknown>) {
  return w.client.callTool({ name, arguments: args });
}

async function run(w: Wired, code: string): Promise<Exec> {
  return structured<Exec>(await call(w, 'execute', { code }));
}

/**
 * The harness's child that runs the kernel, from the pid of the process running the cells: the
 * stdlib kernel itself, or the bridge a Jupyter kernel is a child of.
 */
function kernelChild(variant: ReplVariant, cellPid: number): number {
  return variant.kernel === 'jupyter' ? parentOf(cellPid) : cellPid;
}

/** The pids of the harness and its kernel process, read from inside the kernel. */
async function harnessPids(variant: ReplVariant, w: Wired): Promise<{ harness: number; kernel: number }> {
  const cellPid = (await run(w, 'import os as _os\n_os.getpid()')).return_value as number;
  const kernel = kernelChild(variant, cellPid);
  return { harness: parentOf(kernel), kernel };
}

/** The backend servers the harness started: its children other than the kernel. */
async function backendPids(variant: ReplVariant, w: Wired): Promise<number[]> {
  const { harness: harnessPid, kernel } = await harnessPids(variant, w);
  return childrenOf(harnessPid).filter((pid) => pid !== kernel);
}

/** A backend wrapper that forks a grandchild (`sleep`), records its pid, then execs the server. */
function forkingBackend(where: string): { command: string; grandchildPid: () => number } {
  const command = join(where, 'forking-backend.sh');
  const pidFile = join(where, 'grandchild.pid');
  writeFileSync(
    command,
    `#!/bin/sh\nsleep 1000 &\necho $! > "${pidFile}"\nexec "${join(BIN, 'mcp-server-everything')}"\n`,
    { mode: 0o755 },
  );
  return { command, grandchildPid: () => Number(readFileSync(pidFile, 'utf8').trim()) };
}

describe.each(VARIANTS)('firstlight repl serve with real backend servers, $label', SUITE, (variant) => {
  it('filesystem: install, call, an error raised in Python, describe, uninstall', async () => {
    const root = dir('firstlight-fs-');
    writeFileSync(join(root, 'notes.txt'), 'first line\nsecond line\n');
    const w = await harness(variant);
    const installed = structured(
      await call(w, 'install_capability', {
        name: 'fs',
        command: join(BIN, 'mcp-server-filesystem'),
        args: [root],
      }),
    );
    expect(installed.methods).toEqual(
      expect.arrayContaining(['read_text_file', 'list_directory', 'write_file']),
    );
    const read = await run(w, `fs.read_text_file(path=${JSON.stringify(join(root, 'notes.txt'))})`);
    // structuredContent {"content": text} only wraps the text: the text is the answer.
    expect(read.return_value).toBe('first line\nsecond line\n');
    const positional = await run(w, `fs.read_text_file(${JSON.stringify(join(root, 'notes.txt'))}, head=1)`);
    expect(positional.return_value).toBe('first line');
    const failed = await run(
      w,
      `try:\n    fs.read_text_file(path=${JSON.stringify(join(root, 'missing.txt'))})\nexcept CapabilityError as e:\n    caught = (e.capability, e.method, str(e))\ncaught`,
    );
    const [capability, method, message] = failed.return_value as string[];
    expect([capability, method]).toEqual(['fs', 'read_text_file']);
    expect(message).toMatch(/ENOENT|no such file/i);
    const uncaught = await run(w, `fs.read_text_file(path="/etc/passwd")`);
    expect(uncaught).toMatchObject({ success: false, error_type: 'CapabilityError' });
    const described = await call(w, 'describe_capability', { name: 'fs' });
    expect(textOf(described)).toMatch(
      /read_text_file\(path: str, tail\?: float, head\?: float\)|read_text_file\(path: str/,
    );
    expect((await run(w, 'sorted(n for n in dir(fs) if n.startswith("read"))')).return_value).toEqual(
      expect.arrayContaining(['read_text_file', 'read_media_file']),
    );
    const pids = await backendPids(variant, w);
    expect(pids).toHaveLength(1);
    const removed = structured(await call(w, 'uninstall_capability', { name: 'fs' }));
    expect(removed.message).toMatch(/stopped its server/);
    expect(await waitGone(pids)).toEqual([]);
    expect((await run(w, 'fs')).error_type).toBe('NameError');
  });

  it('memory: env passthrough (MEMORY_FILE_PATH) and structured results', async () => {
    const data = dir('firstlight-memory-');
    const file = join(data, 'memory.jsonl');
    const w = await harness(variant);
    await call(w, 'install_capability', {
      name: 'memory',
      command: join(BIN, 'mcp-server-memory'),
      env: { MEMORY_FILE_PATH: file },
    });
    const created = await run(
      w,
      'memory.create_entities(entities=[{"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}])\ngraph = memory.read_graph()\n[e["name"] for e in graph["entities"]]',
    );
    expect(created.return_value).toEqual(['Ada']);
    expect(readFileSync(file, 'utf8')).toContain('Ada');
  });

  it('everything: sanitised names, text results, backend errors and uninstall', async () => {
    const w = await harness(variant);
    const installed = structured(
      await call(w, 'install_capability', {
        name: 'everything',
        command: join(BIN, 'mcp-server-everything'),
      }),
    );
    expect(installed.methods).toEqual(expect.arrayContaining(['echo', 'get_sum', 'get_structured_content']));
    expect((await run(w, 'everything.echo(message="hi")')).return_value).toBe('Echo: hi');
    expect((await run(w, 'everything.get_sum(a=1, b=2)')).return_value).toBe('The sum of 1 and 2 is 3.');
    const invalid = await run(w, 'everything.get_sum(a="one", b=2)');
    expect(invalid).toMatchObject({ success: false, error_type: 'CapabilityError' });
    expect(invalid.error_message).toMatch(/^everything\.get_sum failed:/);
    expect((await run(w, 'everything.no_such_tool')).error_type).toBe('AttributeError');
    expect(textOf(await call(w, 'describe_capability', { name: 'everything' }))).toContain(
      "(MCP tool 'get-sum')",
    );
    await call(w, 'uninstall_capability', { name: 'everything' });
    const state = structured(await call(w, 'state', {}));
    expect(state.capabilities).toEqual([]);
  });

  it("runs the seed's usage example as written (section 10), against the real filesystem server", async () => {
    // The seed's project: src/, tests/, README.md, pyproject.toml. The harness runs in it, so
    // "." means the project, as the example assumes.
    const project = dir('firstlight-project-');
    mkdirSync(join(project, 'src'));
    mkdirSync(join(project, 'tests'));
    writeFileSync(join(project, 'README.md'), '# demo\n');
    writeFileSync(join(project, 'pyproject.toml'), '[project]\nname = "demo"\n');
    writeFileSync(join(project, 'src', 'app.py'), 'print(1)\n');
    writeFileSync(join(project, 'tests', 'test_app.py'), 'def test(): pass\n');
    const w = await harness(variant, project);

    // > install_capability("fs", "npx @anthropic/filesystem-mcp --root /Users/me/project")
    // The program is the real server's (installed locally, not fetched by npx). It takes its
    // allowed directories as plain arguments: "--root" is skipped with a warning, the path kept.
    const fs = await call(w, 'install_capability', {
      name: 'fs',
      command: `${join(BIN, 'mcp-server-filesystem')} --root ${project}`,
    });
    expect(textOf(fs)).toMatch(/^Installed 'fs' with methods: read_file, .*write_file, .*list_directory, /);
    // > install_capability("shell", "npx @anthropic/shell-mcp")
    // No such package exists; server-everything stands in (its methods are echo, get_sum, …, not run).
    const shell = await call(w, 'install_capability', {
      name: 'shell',
      command: join(BIN, 'mcp-server-everything'),
    });
    expect(textOf(shell)).toMatch(/^Installed 'shell' with methods: echo, /);

    const listing = await run(
      w,
      '\n# Read the project structure\nfiles = fs.list_directory(".")\nprint(files)\n',
    );
    expect(listing.success, listing.stderr).toBe(true);
    // The seed shows ['src/', 'tests/', 'README.md', 'pyproject.toml']. The real list_directory
    // answers one text block "[DIR] src\n[FILE] README.md…" with structuredContent
    // {"content": <that text>}, which only wraps it: the relay gives the text (docs/repl.md).
    // Turning "[DIR] x" lines into a list would mean parsing one server's prose inside the
    // generic relay, so `files` is a str here.
    const printed = listing.stdout.trim();
    expect(printed.startsWith('[')).toBe(true);
    expect(printed).not.toContain("{'content'");
    for (const entry of ['[DIR] src', '[DIR] tests', '[FILE] README.md', '[FILE] pyproject.toml']) {
      expect(printed).toContain(entry);
    }

    const defined = await run(
      w,
      [
        '',
        '# Define a helper function',
        'def find_python_files(directory="."):',
        '    all_files = fs.list_directory(directory, recursive=True)',
        "    return [f for f in all_files if f.endswith('.py')]",
        '',
      ].join('\n'),
    );
    expect(defined).toMatchObject({ success: true, stdout: '', return_value: null });
    const called = await run(w, 'python_files = find_python_files()');
    // The real list_directory has no `recursive` parameter; the server would drop it and
    // answer one level, so the relay refuses it, naming the tool's parameters (issue 38).
    // directory_tree or search_files are its recursive tools.
    expect(called.success).toBe(false);
    expect(called.error_type).toBe('TypeError');
    expect(called.error_message).toBe(
      "list_directory() got an unexpected keyword argument 'recursive' (its parameters: path)",
    );
    await run(w, 'python_files = []');

    const state = structured(await call(w, 'state', {}));
    expect(state).toMatchObject({
      defined_functions: [{ name: 'find_python_files', signature: "(directory='.')" }],
      variables: { files: 'str', python_files: 'list' },
      capabilities: ['fs', 'shell'],
    });
    expect(textOf(await call(w, 'save_state', { name: 'my_session' }))).toBe(
      'State saved to my_session.json',
    );

    // The helper as the real server needs it: its recursive search, and the text split in lines.
    const adapted = await run(
      w,
      [
        'def find_python_files(directory="."):',
        '    all_files = fs.search_files(directory, "**/*.py").splitlines()',
        "    return [f for f in all_files if f.endswith('.py')]",
        'sorted(p.rsplit("/", 1)[-1] for p in find_python_files())',
      ].join('\n'),
    );
    expect(adapted.return_value).toEqual(['app.py', 'test_app.py']);
  });

  it.runIf(variant.transport === 'stdio')(
    'exits cleanly and promptly when its stdin ends, saving and killing its backends and their children',
    async () => {
      const home = homeDir('firstlight-repl-exit-');
      const backend = forkingBackend(home);
      const spawned = Date.now();
      const harness = spawn(process.execPath, [CLI, ...serveArgs(variant, ['--home', home])], {
        stdio: ['pipe', 'pipe', 'ignore'],
      });
      cleanups.push(() => {
        if (harness.exitCode === null) harness.kill('SIGKILL');
      });
      const rpc = jsonRpc(harness);
      await rpc.request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'firstlight-test', version: '0' },
      });
      // Baseline: how long this machine, loaded as it is now, takes to start a harness.
      const startMs = Date.now() - spawned;
      rpc.notify('notifications/initialized');
      const installed = await rpc.request('tools/call', {
        name: 'install_capability',
        arguments: { name: 'everything', command: backend.command },
      });
      expect(installed.isError).toBeUndefined();
      const kernel = (
        await rpc.request('tools/call', { name: 'execute', arguments: { code: 'import os\nos.getpid()' } })
      ).structuredContent.return_value as number;
      const backends = childrenOf(harness.pid as number).filter(
        (pid) => pid !== kernelChild(variant, kernel),
      );
      expect(backends).toHaveLength(1);
      const processes = [
        ...new Set([kernel, kernelChild(variant, kernel)]),
        ...backends,
        backend.grandchildPid(),
      ];
      expect(processes.filter(gone)).toEqual([]);

      const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
        harness.once('exit', (code, signal) => resolve({ code, signal })),
      );
      const started = Date.now();
      harness.stdin.end();
      expect(await exited).toEqual({ code: 0, signal: null });
      // Shutting down (a save, three processes ended) takes no longer than about two starts.
      expect(Date.now() - started).toBeLessThan(ceilingFrom(startMs, { factor: 2, floorMs: 2000 }));
      expect(existsSync(join(home, 'repl', 'states', AUTOSAVE_FILE))).toBe(true);
      expect(await waitGone(processes)).toEqual([]);
    },
  );

  it('kills the whole process group of a backend on uninstall, forked children included', async () => {
    const backend = forkingBackend(dir('firstlight-repl-group-'));
    const w = await harness(variant);
    await call(w, 'install_capability', { name: 'everything', command: backend.command });
    const [server] = await backendPids(variant, w);
    const grandchild = backend.grandchildPid();
    expect(gone(server as number) || gone(grandchild)).toBe(false);
    await call(w, 'uninstall_capability', { name: 'everything' });
    expect(await waitGone([server as number, grandchild])).toEqual([]);
  });

  it('reset keeps relay and native capabilities usable', async () => {
    const w = await harness(variant);
    await call(w, 'install_capability', {
      name: 'everything',
      command: join(BIN, 'mcp-server-everything'),
    });
    await run(
      w,
      'class Tool:\n    name = "tool"\n    def describe(self):\n        return "tool"\nregister_capability(Tool())\nscratch = 1',
    );
    const reset = structured(await call(w, 'reset', {}));
    expect(reset.capabilities).toEqual(['everything', 'tool']);
    const after = await run(w, '(everything.echo(message="still"), tool.describe(), "scratch" in dir())');
    expect(after.return_value).toEqual(['Echo: still', 'tool', false]);
  });
});

describe.each(VARIANTS)('persistence with backends, $label', SUITE, (variant) => {
  it("restores the seed's example state file (only paths changed)", async () => {
    const root = dir('firstlight-seed-root-');
    const w = await harness(variant);
    const states = structured<{ file: string }>(await call(w, 'save_state', { name: 'probe' })).file;
    // The seed's example (002, section 7.2) with its two commands pointing at real servers,
    const seed = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'repl', 'seed-state.json'), 'utf8')
      .replace('"npx @anthropic/gmail-mcp"', JSON.stringify(`${join(BIN, 'mcp-server-everything')} stdio`))
      // "npx pkg" as one string beside a dict of args: a program and its script (issue 38).
      .replace(
        '"npx @anthropic/filesystem-mcp"',
        JSON.stringify(`${process.execPath} ${join(BIN, 'mcp-server-filesystem')}`),
      )
      .replace('"/home/user"', JSON.stringify(root));
    writeFileSync(join(dirname(states), 'seed.json'), seed);
    const restored = structured<{ restored: string[]; failed: { name: string; reason: string }[] }>(
      await call(w, 'restore_state', { name: 'seed' }),
    );
    expect(restored.restored.sort()).toEqual(['config', 'fs', 'gmail', 'my_helper']);
    expect(restored.failed).toEqual([
      expect.objectContaining({
        name: 'data',
        kind: 'variable',
        reason: expect.stringMatching(/dill pickle/),
      }),
    ]);
    const back = await run(
      w,
      '(my_helper(21), config, gmail.echo(message="hi"), fs.list_allowed_directories())',
    );
    expect(back.return_value).toEqual([42, { key: 'value' }, 'Echo: hi', expect.stringContaining(root)]);
    const state = structured(await call(w, 'state', {}));
    expect(state).toMatchObject({ capabilities: ['fs', 'gmail'], history_length: 4 });
  });

  it('keeps what failed to restore in the next autosave, and restores it once it can', async () => {
    const home = homeDir('firstlight-repl-carry-');
    const flag = join(home, 'backend-ok');
    const flaky = join(home, 'flaky-backend.sh');
    writeFileSync(
      flaky,
      `#!/bin/sh\n[ -f "${flag}" ] || { echo "registry hiccup" >&2; exit 1; }\nexec "${join(BIN, 'mcp-server-everything')}"\n`,
      { mode: 0o755 },
    );
    const autosave = join(home, 'repl', 'states', AUTOSAVE_FILE);
    mkdirSync(dirname(autosave), { recursive: true });
    writeFileSync(
      autosave,
      JSON.stringify({
        version: 1,
        saved_at: '2026-01-01T00:00:00Z',
        capabilities: { everything: { command: flaky, args: [], env: {}, cwd: null } },
        functions: { shout: { source: '@needs_setup\ndef shout(s):\n    return s.upper()\n' } },
        variables: { n: { type: 'json', value: 1 } },
      }),
    );

    const first = await wireRepl(variant, ['--home', home]);
    const notice = await run(first, 'n');
    expect(notice.return_value).toBe(1);
    expect(notice.stderr).toMatch(/NOT restored: everything \[capability\].*registry hiccup/);
    expect(notice.stderr).toMatch(/shout \[function\] \(NameError/);
    const probe = structured(await call(first, 'save_state', { name: 'probe' }));
    expect(probe.unrestored).toEqual([
      expect.objectContaining({ name: 'everything', kind: 'capability' }),
      expect.objectContaining({ name: 'shout', kind: 'function' }),
    ]);
    expect(probe.message).toMatch(/still not restored: everything \[capability\], shout \[function\]/);
    await first.close();
    const kept = JSON.parse(readFileSync(autosave, 'utf8'));
    expect(kept.capabilities.everything.command).toBe(flaky);
    expect(kept.functions.shout.source).toContain('@needs_setup');
    expect(kept.variables.n).toEqual({ type: 'json', value: 1 });

    writeFileSync(flag, '');
    const second = await wireRepl(variant, ['--home', home]);
    cleanups.push(second.close);
    const back = await run(second, 'everything.echo(message="back")');
    expect(back.return_value).toBe('Echo: back');
    expect(back.stderr).not.toMatch(/everything \[capability\]/);
    expect(back.stderr).toMatch(/NOT restored: shout \[function\]/);
    // Defining the name again replaces the unrestored entry.
    await run(second, 'def shout(s):\n    return s + "!"');
    const saved = structured(await call(second, 'save_state', { name: 'after' }));
    expect(saved.unrestored).toEqual([]);
  });
});

describe.each(VARIANTS)('relay calls from threads and interrupts, $label', SUITE, (variant) => {
  async function withEverything(): Promise<Wired> {
    const w = await harness(variant);
    await call(w, 'install_capability', {
      name: 'everything',
      command: join(BIN, 'mcp-server-everything'),
    });
    return w;
  }

  it('answers relay calls from a ThreadPoolExecutor, each thread its own answer, in order', async () => {
    const w = await withEverything();
    const result = structured<Exec>(
      await call(w, 'execute', {
        code: [
          'import time',
          'from concurrent.futures import ThreadPoolExecutor',
          't = time.perf_counter()',
          'everything.echo(message="one")',
          'one = time.perf_counter() - t',
          't = time.perf_counter()',
          'with ThreadPoolExecutor(4) as pool:',
          '    echoed = list(pool.map(lambda i: everything.echo(message=f"m{i}"), range(16)))',
          '(echoed, time.perf_counter() - t, one)',
        ].join('\n'),
        timeout: 20,
      }),
    );
    expect(result.success, result.stderr).toBe(true);
    const [echoed, seconds, one] = result.return_value as [string[], number, number];
    expect(echoed).toEqual(Array.from({ length: 16 }, (_, i) => `Echo: m${i}`));
    // Against one call timed in the same cell: sixteen calls on four threads, no call stuck.
    expect(seconds * 1000).toBeLessThan(ceilingFrom(one * 1000, { factor: 16, floorMs: 2000 }));
    // The namespace survived (no hang, no kill-and-restart).
    expect((await run(w, 'len(echoed)')).return_value).toBe(16);
  });

  it('ends a relay call at the timeout, and the next call gets its own answer', async () => {
    const w = await withEverything();
    await run(w, 'kept = "yes"');
    // Baseline: one relay call's round trip on this machine now.
    let started = Date.now();
    await run(w, 'everything.echo(message="before")');
    const relayMs = Date.now() - started;
    started = Date.now();
    const timedOut = structured<Exec>(
      await call(w, 'execute', {
        code: 'everything.trigger_long_running_operation(duration=10, steps=10)',
        timeout: 1,
      }),
    );
    expect(timedOut).toMatchObject({ success: false, error_type: 'TimeoutError' });
    // The 1 s timeout plus about a round trip, far short of the 10 s operation.
    expect(Date.now() - started - 1000).toBeLessThan(ceilingFrom(relayMs, { factor: 30, floorMs: 3000 }));
    expect((await run(w, 'everything.echo(message="after")')).return_value).toBe('Echo: after');
    expect((await run(w, 'kept')).return_value).toBe('yes');
  });

  it('drops the late answer of a call interrupted while another thread reads the channel', async () => {
    const w = await withEverything();
    const result = await run(
      w,
      [
        'import os, signal, threading, time',
        'slow = {}',
        'reader = threading.Thread(target=lambda: slow.update(r=everything.trigger_long_running_operation(duration=2, steps=1)))',
        'reader.start(); time.sleep(0.3)  # the thread is now the one reading answers',
        'threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()',
        'try:',
        '    everything.trigger_long_running_operation(duration=1, steps=1)',
        '    interrupted = False',
        'except KeyboardInterrupt:',
        '    interrupted = True',
        'reader.join()',
        '(interrupted, slow["r"], everything.echo(message="next"))',
      ].join('\n'),
    );
    expect(result.success, result.stderr).toBe(true);
    const [interrupted, slow, next] = result.return_value as [boolean, string, string];
    expect(interrupted).toBe(true);
    expect(slow).toMatch(/Duration: 2 seconds/);
    expect(next).toBe('Echo: next');
  });
});
