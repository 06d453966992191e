/**
 * Issue 37: installs a team can commit. `install claude` wrote a hook command naming this
 * machine's node binary and package path into `.claude/settings.json`, the file a team commits,
 * and ran from `~` it treated the home directory as a project.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleHomeCopy, put, REPO_ROOT, run, runCli, tempDir } from '../helpers/index.js';

const disposers: (() => void)[] = [];
const temp = (prefix: string) => {
  const t = tempDir(prefix);
  disposers.push(t.dispose);
  return t.dir;
};
afterAll(() => {
  for (const dispose of disposers.splice(0)) dispose();
});

/** A PATH directory whose `firstlight` is the bin of the package at `pkg`, as npm links it. */
function binDir(pkg: string): string {
  const bin = temp('firstlight-e2e-bin-');
  symlinkSync(join(pkg, 'dist', 'cli', 'firstlight.cjs'), join(bin, 'firstlight'));
  return bin;
}

const git = (cwd: string, ...args: string[]) =>
  run('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd });

describe('install claude with firstlight on PATH: files a team can commit (built CLI)', () => {
  let project: string;
  let user: string;
  let home: { dir: string; dispose: () => void };
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    project = temp('firstlight-e2e-team-');
    user = temp('firstlight-e2e-user-');
    home = exampleHomeCopy();
    disposers.push(home.dispose);
    // The default home (~/.firstlight): a home named by FIRSTLIGHT_HOME or --home is pinned into
    // the commands (a desktop-launched host does not inherit the shell's variables).
    cpSync(home.dir, join(user, '.firstlight'), { recursive: true });
    env = { HOME: user, PATH: `${binDir(REPO_ROOT)}:${process.env.PATH}` };
    put(project, '.gitignore', 'node_modules/\n');
    put(project, 'README.md', '# team project\n');
    await git(project, 'init', '-q');
  });

  it('writes hooks that call `firstlight` by name into .claude/settings.json, and no path of this machine', async () => {
    const r = await runCli(['install', 'claude', '--project', project], { env, cwd: project });
    expect(r.status, r.stderr).toBe(0);
    const settings = JSON.parse(readFileSync(join(project, '.claude', 'settings.json'), 'utf8'));
    const commands: string[] = Object.values(
      settings.hooks as Record<string, { hooks: { command: string }[] }[]>,
    ).flatMap((groups) => groups.flatMap((g) => g.hooks.map((h) => h.command)));
    expect(commands.length).toBeGreaterThanOrEqual(6);
    for (const command of commands) expect(command).toMatch(/^firstlight hook [a-z-]+$/);
    expect(existsSync(join(project, '.claude', 'settings.local.json'))).toBe(false);
    const mcp = JSON.parse(readFileSync(join(project, '.mcp.json'), 'utf8')).mcpServers.firstlight;
    expect([mcp.command, ...mcp.args]).toEqual(['firstlight', 'serve']);
    // Nothing a commit takes names this machine: no node binary, no package path, no temp dir.
    await git(project, 'add', '-A');
    const staged = (await git(project, 'diff', '--cached', '--name-only')).stdout.trim().split('\n');
    expect(staged).toContain('.claude/settings.json');
    expect(staged).not.toContain('.firstlight/manifest.json');
    for (const file of staged) {
      const text = readFileSync(join(project, file), 'utf8');
      for (const machine of [process.execPath, REPO_ROOT, project, user, '/tmp/'])
        expect(text, `${file} names ${machine}`).not.toContain(machine);
    }
    expect(r.stdout).toContain('safe to commit');
    const d = await runCli(['doctor', '--project', project, '--json'], { env, cwd: project });
    const hooks = JSON.parse(d.stdout).hosts[0].checks.find((c: { id: string }) => c.id === 'hooks');
    expect(hooks.detail).toMatch(/present in \.claude\/settings\.json, by name: safe to commit/);
  });

  it('a clone at another path, with the package moved and another node on PATH, runs the hooks with no re-install', async () => {
    await git(project, 'commit', '-q', '-m', 'firstlight');
    const clone = join(temp('firstlight-e2e-clone-'), 'elsewhere');
    expect((await git(project, 'clone', '-q', project, clone)).status).toBe(0);
    // The package, moved: only what the hooks use (the bundles need no node_modules).
    const moved = temp('firstlight-e2e-moved-pkg-');
    for (const part of ['dist', 'assets', 'examples', 'package.json'])
      cpSync(join(REPO_ROOT, part), join(moved, part), { recursive: true });
    // Another node: another path to a node binary, first on PATH.
    const otherNode = temp('firstlight-e2e-node-');
    mkdirSync(join(otherNode, 'bin'));
    symlinkSync(process.execPath, join(otherNode, 'bin', 'node'));
    const PATH = `${binDir(moved)}:${join(otherNode, 'bin')}:/bin`;
    const hooks = JSON.parse(readFileSync(join(clone, '.claude', 'settings.json'), 'utf8')).hooks;
    const hook = (event: string, input: unknown) =>
      run('/bin/sh', ['-c', hooks[event][0].hooks[0].command], {
        cwd: clone,
        input: JSON.stringify(input),
        env: { HOME: user, PATH },
      });
    const start = await hook('SessionStart', { session_id: 'clone-1', cwd: clone, source: 'startup' });
    expect(start.status, start.stderr).toBe(0);
    expect(JSON.parse(start.stdout).hookSpecificOutput.additionalContext).toContain('bootstrap_session');
    const gate = await hook('PreToolUse', {
      session_id: 'clone-1',
      cwd: clone,
      transcript_path: join(REPO_ROOT, 'test', 'fixtures', 'transcripts', 'no-result.jsonl'),
      tool_name: 'Bash',
      tool_input: { command: 'rm -rf build' },
    });
    expect(gate.status, gate.stderr).toBe(0);
    expect(JSON.parse(gate.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
  });
});

describe('install without firstlight on PATH (built CLI)', () => {
  it('puts the hooks in the uncommitted .claude/settings.local.json and says which files name this machine', async () => {
    const project = temp('firstlight-e2e-local-');
    const home = exampleHomeCopy();
    disposers.push(home.dispose);
    const env = { HOME: temp('firstlight-e2e-user-'), FIRSTLIGHT_HOME: home.dir, PATH: '/usr/bin:/bin' };
    const r = await runCli(['install', 'claude', '--project', project, '--json'], { env, cwd: project });
    expect(r.status, r.stderr).toBe(0);
    const files = JSON.parse(r.stdout).files as { display: string; notes: string[] }[];
    const local = JSON.parse(readFileSync(join(project, '.claude', 'settings.local.json'), 'utf8'));
    expect(local.hooks.PreToolUse[0].hooks[0].command).toContain(process.execPath);
    const shared = JSON.parse(readFileSync(join(project, '.claude', 'settings.json'), 'utf8'));
    expect(shared.hooks).toBeUndefined();
    expect(files.find((f) => f.display === '.mcp.json')?.notes.join(' ')).toMatch(
      /names this machine's node and firstlight paths/,
    );
  });
});

describe('a project root that reaches every session is refused (built CLI)', () => {
  it('install from the home directory or / exits 2 unless --scope user', async () => {
    const user = temp('firstlight-e2e-user-');
    const home = exampleHomeCopy();
    disposers.push(home.dispose);
    const env = { HOME: user, FIRSTLIGHT_HOME: home.dir };
    for (const [cwd, args] of [
      [user, ['install', 'claude']],
      [user, ['install', 'claude', '--project', user]],
      ['/', ['install', 'claude', '--project', '/']],
    ] as const) {
      const r = await runCli([...args], { env, cwd });
      expect(r.status, `${cwd} ${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/--scope user/);
    }
    expect(existsSync(join(user, '.mcp.json'))).toBe(false);
    expect(existsSync(join(user, 'CLAUDE.md'))).toBe(false);
    const userScope = await runCli(['install', 'claude', '--scope', 'user'], { env, cwd: user });
    expect(userScope.status, userScope.stderr).toBe(0);
    expect(existsSync(join(user, '.claude', 'settings.json'))).toBe(true);
  });
});
