/**
 * The OS sandbox of read-only sessions on agent CLIs: which sessions are confined, the bwrap
 * mounts in the order that keeps the project read-only, what counts as a refused write, and
 * bubblewrap itself (run for real where it is installed and can start here).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bwrapSandbox,
  codexArgs,
  createSubstrate,
  isSandboxWriteDenial,
  type SubstrateRequest,
  sandboxPlan,
  sessionSandbox,
} from '../../../src/runtime/index.js';

let root = '';
let bwrapProblem: string | null = null;
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'firstlight-sandbox-unit-'));
  bwrapProblem = await bwrapSandbox('bwrap').unavailable();
  if (bwrapProblem) console.warn(`bubblewrap runs skipped: ${bwrapProblem}`);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const config = { mode: 'required' as const, writable: [] };

describe('which sessions are confined', () => {
  const claude = createSubstrate('claude-cli');
  const place = { projectDir: '/p', scratchDir: '/p/.firstlight/scratch/s-1' };

  it('a role without mutating tools on an agent CLI runs in the sandbox, with its scratch directory', () => {
    for (const kind of ['claude-cli', 'codex-cli', 'gemini-cli']) {
      const decided = sessionSandbox(createSubstrate(kind), { mayWrite: false, config, ...place });
      expect(decided, kind).toEqual({
        request: { projectDir: '/p', scratchDir: '/p/.firstlight/scratch/s-1', writable: [] },
        journal: 'bwrap',
        meta: { kind: 'bwrap', scratch: '/p/.firstlight/scratch/s-1' },
      });
    }
  });

  it('a mutating role, and a substrate whose tools the runtime runs, are not confined', () => {
    expect(sessionSandbox(claude, { mayWrite: true, config, ...place })).toEqual({});
    for (const kind of ['anthropic', 'openai-compatible', 'command'])
      expect(sessionSandbox(createSubstrate(kind), { mayWrite: false, config, ...place }), kind).toEqual({});
  });

  it('a profile that opts out runs unconfined, with its reason on record', () => {
    const off = { mode: 'off' as const, reason: 'the runner is a throwaway VM', writable: [] };
    expect(sessionSandbox(claude, { mayWrite: false, config: off, ...place })).toEqual({
      journal: 'off: the runner is a throwaway VM',
      meta: { kind: 'off', reason: 'the runner is a throwaway VM' },
    });
  });
});

describe('a write the sandbox refused', () => {
  it('is recognised in shell, Node and Python messages', () => {
    for (const output of [
      "Exit code 1\ntouch: cannot touch '/p/x': Read-only file system",
      'bash: line 1: /p/x: Read-only file system\n',
      "EROFS: read-only file system, open '/p/y.txt.tmp.2.85'",
      "Error writing to file '/p/y.txt': EROFS: read-only file system, open '/p/y.txt' (EROFS)",
      "OSError: [Errno 30] Read-only file system: '/p/x'",
    ])
      expect(isSandboxWriteDenial('Bash', output), output).toBe(true);
  });

  it('is not a read tool showing text that mentions it, nor other failures', () => {
    expect(isSandboxWriteDenial('Read', "touch: cannot touch 'x': Read-only file system")).toBe(false);
    expect(isSandboxWriteDenial('read_file', 'EROFS: read-only file system, open')).toBe(false);
    expect(isSandboxWriteDenial('Bash', "touch: cannot touch 'x': Permission denied")).toBe(false);
    expect(isSandboxWriteDenial('Bash', 'grep EROFS src/*.ts')).toBe(false);
  });
});

describe('the bwrap mounts', () => {
  it('mount the root read-only, the writable places, then the project read-only, then the scratch directory', () => {
    const home = join(root, 'home');
    const project = join(root, 'project');
    const scratch = join(project, '.firstlight', 'scratch', 's-1');
    mkdirSync(project, { recursive: true });
    const plan = sandboxPlan(
      bwrapSandbox('/usr/bin/bwrap'),
      { projectDir: project, scratchDir: scratch, writable: ['~/.npm', root] },
      {
        command: process.execPath,
        args: ['--version'],
        cwd: project,
        env: { HOME: home, PATH: '' },
        state: { dirs: ['~/.cli'], protect: ['~/.cli/settings.json'] },
      },
    );
    try {
      expect(plan.command).toBe('/usr/bin/bwrap');
      const mounts = plan.args
        .map((arg, i) => [arg, plan.args[i + 1]])
        .filter(([flag]) => /bind|^--dev$|^--proc$/.test(flag!))
        .map(([flag, path]) => `${flag} ${path}`);
      expect(mounts).toEqual([
        '--ro-bind /',
        '--dev /dev',
        '--proc /proc',
        `--bind ${home}/.cli`,
        `--bind-try ${home}/.npm`,
        `--bind-try ${root}`,
        `--bind ${plan.tmpDir}`,
        `--ro-bind ${project}`,
        `--bind ${scratch}`,
        `--ro-bind-try ${home}/.cli/settings.json`,
      ]);
      expect(plan.args).toEqual(
        expect.arrayContaining(['--unshare-all', '--share-net', '--die-with-parent']),
      );
      expect(plan.args.slice(plan.args.indexOf('--chdir'), plan.args.indexOf('--') + 3)).toEqual([
        '--chdir',
        project,
        '--setenv',
        'TMPDIR',
        plan.tmpDir,
        '--',
        process.execPath,
        '--version',
      ]);
      // The CLI's state directory exists before the CLI starts: it could not create it inside.
      expect(existsSync(join(home, '.cli'))).toBe(true);
    } finally {
      plan.dispose();
    }
    expect(existsSync(plan.tmpDir)).toBe(false);
    // An empty scratch directory is not left behind.
    expect(existsSync(scratch)).toBe(false);
  });

  it('confined Codex runs without its own sandbox, which cannot set up its mounts inside', () => {
    const request = { removedTools: ['Bash'], mcpServers: {}, tools: [], systemPrompt: '' };
    const confined = codexArgs(
      {
        ...request,
        sandbox: { projectDir: '/p', scratchDir: '/s', writable: [] },
      } as unknown as SubstrateRequest,
      {},
    );
    expect(confined[confined.indexOf('--sandbox') + 1]).toBe('danger-full-access');
    const unconfined = codexArgs(request as unknown as SubstrateRequest, {});
    expect(unconfined[unconfined.indexOf('--sandbox') + 1]).toBe('read-only');
  });
});

/** Runs a plan to its end; its exit code and output. */
function run(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString('utf8');
    });
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('bubblewrap, for real', () => {
  it('keeps the project and the home unwritten and takes writes in the scratch and state directories', async ({
    skip,
  }) => {
    if (bwrapProblem) return skip(bwrapProblem);
    const home = join(root, 'real-home');
    const project = join(root, 'real-project');
    const scratch = join(project, '.firstlight', 'scratch', 's-2');
    mkdirSync(home, { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'README.md'), 'the project\n');
    const script = [
      // Root inside holds no capability: the read-only project cannot be remounted writable.
      'mount -o remount,bind,rw "$P" 2>/dev/null && echo remounted',
      'for f in "$P/x" "$P/README.md" "$H/x" /tmp/firstlight-sandbox-probe; do echo w >> "$f" 2>/dev/null && echo "wrote $f"; done',
      'echo draft > "$S/draft.md" && echo scratch-ok',
      'echo state > "$H/.cli/session" && echo state-ok',
      'echo tmp > "$TMPDIR/t" && echo tmp-ok',
      'cat "$P/README.md"',
    ].join('; ');
    const plan = sandboxPlan(
      bwrapSandbox('bwrap'),
      { projectDir: project, scratchDir: scratch, writable: [] },
      {
        command: 'sh',
        args: ['-c', script],
        cwd: project,
        env: { HOME: home, PATH: process.env.PATH },
        state: { dirs: ['~/.cli'], protect: [] },
      },
    );
    const env = { PATH: process.env.PATH, HOME: home, P: project, H: home, S: scratch };
    const { code, output } = await run(plan.command, plan.args, env);
    plan.dispose();
    expect(code, output).toBe(0);
    expect(output).not.toContain('wrote');
    expect(output).not.toContain('remounted');
    expect(output).toContain('scratch-ok');
    expect(output).toContain('state-ok');
    expect(output).toContain('tmp-ok');
    expect(output).toContain('the project');
    expect(existsSync(join(project, 'x'))).toBe(false);
    expect(readFileSync(join(project, 'README.md'), 'utf8')).toBe('the project\n');
    expect(readFileSync(join(scratch, 'draft.md'), 'utf8')).toBe('draft\n');
    expect(readFileSync(join(home, '.cli', 'session'), 'utf8')).toBe('state\n');
  });

  it('reports a sandbox that is missing or cannot start, naming the executable', async () => {
    const missing = await bwrapSandbox('/nonexistent/bwrap').unavailable();
    expect(missing).toContain('"/nonexistent/bwrap" was not found; install bubblewrap');
    const broken = await bwrapSandbox('/bin/false').unavailable();
    expect(broken).toContain('"/bin/false" cannot start here (exit 1)');
  });
});
