/**
 * One CLI voice, through the built command: what a person meets in a working day, each a test.
 * `FIRSTLIGHT_CLI=path/to/main.js` runs the file against another build (an older one fails
 * these where it spoke with several voices).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_HELP } from '../../src/cli/help-text.js';
import { CLI, exampleHomeCopy, REPO_ROOT, tempDir, tempHome } from '../helpers/index.js';

const ENTRY = process.env.FIRSTLIGHT_CLI ?? CLI;
const TIMEOUT = 120_000;

const cleanup: (() => void)[] = [];
afterAll(() => {
  for (const dispose of cleanup.splice(0)) dispose();
});
function scratch(prefix = 'firstlight-voice-'): string {
  const t = tempDir(prefix);
  cleanup.push(t.dispose);
  return t.dir;
}

/** A clean environment: a temp HOME, no FIRSTLIGHT_* from the outside. */
function baseEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FIRSTLIGHT_')));
  return { ...env, HOME: scratch('firstlight-voice-user-'), ...extra };
}

/** The CLI under test, run without blocking the worker (many runs in a row add up). */
function cli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return collect(
    spawn(process.execPath, [ENTRY, ...args], {
      env: options.env ?? baseEnv(),
      cwd: options.cwd ?? scratch('firstlight-voice-cwd-'),
    }),
    options.input ?? '',
  );
}

function collect(
  child: ChildProcess,
  input: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin?.end(input);
  });
}

/** Through a shell, so stdin is a real pipe (a FIFO) as in `printf … | firstlight init`. */
function shell(script: string, env: NodeJS.ProcessEnv, cwd?: string) {
  return collect(spawn('sh', ['-c', script], { env, cwd: cwd ?? scratch() }), '');
}
const q = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const NODE_CLI = `${q(process.execPath)} ${q(ENTRY)}`;

let home: string;
beforeAll(() => {
  const h = exampleHomeCopy();
  cleanup.push(h.dispose);
  home = h.dir;
});

describe('every --json answer carries ok', { timeout: TIMEOUT }, () => {
  it('ok: true on success, for every kind of command', async () => {
    const project = scratch();
    mkdirSync(join(project, '.git'));
    const env = baseEnv({ FIRSTLIGHT_HOME: home });
    const runs: [string[], string?][] = [
      [['status', '--json']],
      [['sessions', '--json']],
      [['events', '--json']],
      [['memory', 'list', '--json']],
      [['memory', 'show', 'user_alex', '--json']],
      [['recall', 'squash', '--json']],
      [['remember', '--type', 'note', '--name', 'JSON voice check', '--json'], 'Every answer carries ok.'],
      [['internalize', '--tail', 'checking the voice', '--json']],
      [['taskspace', 'list', '--json']],
      [['packet', '--json']],
      [['journal', '--json']],
      [['install', 'claude', '--dry-run', '--json']],
      [['init', '--home', join(scratch(), 'new-home'), '--name', 'Kestrel', '--json']],
    ];
    for (const [args, input] of runs) {
      const r = await cli(args, { env, cwd: project, ...(input ? { input } : {}) });
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout).ok, args.join(' ')).toBe(true);
    }
  });

  it('a failure is {ok:false, error:{code, message, fix}}: the fix once, under one name', async () => {
    const missing = join(scratch(), 'no-such-home');
    const r = await cli(['recall', 'x', '--home', missing, '--json']);
    expect(r.status).toBe(1);
    const answer = JSON.parse(r.stdout);
    expect(answer.ok).toBe(false);
    expect(Object.keys(answer.error).sort()).toEqual(['code', 'fix', 'message']);
    expect(answer.error.code).toBe('HOME_NOT_FOUND');
    const usage = JSON.parse((await cli(['recall', '--json'])).stdout);
    expect(usage.ok).toBe(false);
    expect(Object.keys(usage.error).sort()).toEqual(['code', 'fix', 'message']);
  });

  it('doctor with nothing installed answers ok:false with the error that says what to do', async () => {
    const project = scratch();
    mkdirSync(join(project, '.git'));
    const r = await cli(['doctor', '--json'], { env: baseEnv({ FIRSTLIGHT_HOME: home }), cwd: project });
    expect(r.status).toBe(1);
    const answer = JSON.parse(r.stdout);
    expect(answer.ok).toBe(false);
    expect(answer.error).toMatchObject({ code: 'NOT_INSTALLED', fix: 'run firstlight install HOST' });
  });
});

describe('help in one voice', { timeout: TIMEOUT }, () => {
  const commandsOf = (help: string) =>
    [...(help.split('\nCommands:\n')[1] ?? '').matchAll(/^ {2}([a-z]+)[ |]/gm)].map((m) => m[1]!);

  it('every command’s --help has an example and prints numeric defaults as numbers', async () => {
    const commands = commandsOf((await cli(['--help'])).stdout).filter((c) => c !== 'help');
    expect(commands.length).toBeGreaterThan(15);
    const missing: string[] = [];
    const quoted: string[] = [];
    for (const command of commands) {
      const help = (await cli([command, '--help'])).stdout;
      if (!/\nExamples?:\n {2}\S/.test(help)) missing.push(command);
      if (/\(default: "\d+"\)/.test(help)) quoted.push(command);
    }
    expect(missing, 'commands whose help has no example').toEqual([]);
    expect(quoted, 'commands printing a number as a string').toEqual([]);
  });

  it('words the project-root rule one way in every help that takes --project', async () => {
    const flat = (text: string) => text.replace(/\s+/g, ' ');
    for (const command of [
      ['status'],
      ['doctor'],
      ['install'],
      ['uninstall'],
      ['taskspace'],
      ['taskspace', 'list'],
    ]) {
      expect(flat((await cli([...command, '--help'])).stdout), command.join(' ')).toContain(PROJECT_HELP);
    }
  });

  it('recall takes --limit, like sessions and events, and still accepts --k', async () => {
    const env = baseEnv({ FIRSTLIGHT_HOME: home });
    const limited = await cli(['recall', 'merge', '--limit', '1', '--json'], { env });
    expect(limited.status, limited.stderr).toBe(0);
    expect(JSON.parse(limited.stdout).results).toHaveLength(1);
    const old = await cli(['recall', 'merge', '--k', '1', '--json'], { env });
    expect(JSON.parse(old.stdout).results).toHaveLength(1);
    expect((await cli(['recall', '--help'])).stdout).toContain('--limit <n>');
  });

  it('firstlight help TOPIC prints the documentation page shipped in the package', async () => {
    const r = await cli(['help', 'repl']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.startsWith(readFileSync(join(REPO_ROOT, 'docs', 'repl.md'), 'utf8'))).toBe(true);
    const list = (await cli(['help'])).stdout;
    expect(list).toMatch(/Documentation topics \(firstlight help TOPIC\): .*hosts.*repl/);
    const unknown = await cli(['help', 'hostz']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('(did you mean hosts?)');
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('docs');
  });

  it('stops quietly when the reader closes the pipe (firstlight init --help | head)', async () => {
    const r = await shell(
      `${NODE_CLI} init --help | true; ${NODE_CLI} --help | head -3 >/dev/null`,
      baseEnv(),
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

describe('names: near misses and aliases', { timeout: TIMEOUT }, () => {
  it('memory rm and memory delete forget (and restore brings it back)', async () => {
    const h = exampleHomeCopy();
    cleanup.push(h.dispose);
    const rm = await cli(['memory', 'rm', 'Old cache decision', '--home', h.dir]);
    expect(rm.status, rm.stderr).toBe(0);
    expect(rm.stdout).toContain('forgot "Old cache decision"');
    expect((await cli(['memory', 'restore', 'Old cache decision', '--home', h.dir])).status).toBe(0);
    const del = await cli(['memory', 'delete', 'Old cache decision', '--home', h.dir]);
    expect(del.status, del.stderr).toBe(0);
  });

  it('memory show suggests the memories a name could mean, and shows the only one (issue 38)', async () => {
    const r = await cli(['memory', 'show', 'cache', '--home', home]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('no memory named "cache"');
    expect(r.stderr).toMatch(/fix: did you mean one of .*"Old cache decision"/);
    const one = await cli(['memory', 'show', 'squash', '--home', home]);
    expect(one.status, one.stderr).toBe(0);
    expect(one.stdout).toContain('name: Squash merges only');
  });

  it('a mistyped command, or a word for one, suggests the command', async () => {
    const typo = await cli(['reacll', 'x']);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toContain('(did you mean recall?)');
    const synonym = await cli(['search', 'x']);
    expect(synonym.status).toBe(2);
    expect(synonym.stderr).toContain('(did you mean recall?)');
    const sub = await cli(['memory', 'shw', 'x']);
    expect(sub.stderr).toContain('(did you mean show?)');
  });
});

describe('input where a person gives it', { timeout: TIMEOUT }, () => {
  it('memory edit without $VISUAL or $EDITOR uses an editor found on PATH, and says so (on a terminal)', async () => {
    const h = exampleHomeCopy();
    cleanup.push(h.dispose);
    const bin = scratch();
    const sed = ['/usr/bin/sed', '/bin/sed'].find((p) => existsSync(p)) ?? 'sed';
    // A "nano" that edits the description, as a person would.
    writeFileSync(
      join(bin, 'nano'),
      `#!/bin/sh\n${sed} -i 's/^description: .*/description: edited in the fallback editor/' "$1"\n`,
    );
    chmodSync(join(bin, 'nano'), 0o755);
    // Only the fake nano on PATH: no real editor (Debian has /usr/bin/editor) may start and wait.
    const env = baseEnv({ PATH: bin });
    delete env.EDITOR;
    delete env.VISUAL;
    // On a terminal (script(1) gives the command a pseudo-terminal): with none, a fallback editor
    // is not started at all (the test below `memory edit` in memory-manage says so).
    if (!existsSync('/usr/bin/script')) {
      console.log('skipped: the terminal fallback needs script(1) (util-linux) for a pseudo-terminal');
      return;
    }
    const command = [process.execPath, ENTRY, 'memory', 'edit', 'user_alex', '--home', h.dir]
      .map((a) => `'${a}'`)
      .join(' ');
    const r = await collect(
      spawn('/usr/bin/script', ['-qec', command, '/dev/null'], {
        env,
        cwd: scratch('firstlight-voice-cwd-'),
      }),
      '',
    );
    expect(r.status, r.stdout + r.stderr).toBe(0);
    // script(1) joins the command's stderr to what it prints.
    expect(r.stdout + r.stderr).toContain('editing with nano');
    expect(readFileSync(join(h.dir, 'memory', 'user_alex.md'), 'utf8')).toContain(
      'description: edited in the fallback editor',
    );
  });

  it('echo … | firstlight internalize stores the text as the stream tail', async () => {
    const h = tempHome();
    cleanup.push(h.dispose);
    const env = baseEnv();
    const r = await shell(
      `echo 'Halfway through the retry patch; next: the backoff test.' | ${NODE_CLI} internalize --home ${q(h.dir)}`,
      env,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('stored 56 characters');
    const packet = JSON.parse((await cli(['packet', '--home', h.dir], { env })).stdout);
    expect(packet.resumption.stream_tail).toBe('Halfway through the retry patch; next: the backoff test.');
  });

  it("printf 'Kestrel\\n…' | firstlight init reads the answers from the pipe", async () => {
    const env = baseEnv();
    const dir = join(scratch(), 'home');
    const r = await shell(
      `printf 'Kestrel\\nAda, data engineer on billing\\nterse; tests first\\n' | ${NODE_CLI} init --home ${q(dir)}`,
      env,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('persona Kestrel, answers read from stdin');
    const persona = readFileSync(join(dir, 'persona', 'agent_system.md'), 'utf8');
    expect(persona).toContain('You are Kestrel');
    expect(persona).toContain('Ada, data engineer on billing');
    expect(persona).toContain('terse; tests first');
  });

  it('init without a terminal, flags or piped answers says it used the defaults and which flags to pass', async () => {
    const dir = join(scratch(), 'home');
    const r = await shell(`${NODE_CLI} init --home ${q(dir)} < /dev/null`, baseEnv());
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'stdin is not a terminal and no --name, --user or --style was given: used the defaults',
    );
    expect(r.stderr).toContain('firstlight init --name NAME --user');
  });
});

describe('what the mind recorded, and what it has not', { timeout: TIMEOUT }, () => {
  it('events shows a denied Bash as DENIED, with a summary of its arguments', async () => {
    const h = tempHome();
    cleanup.push(h.dispose);
    const env = baseEnv({ FIRSTLIGHT_HOME: h.dir });
    const gate = await cli(['hook', 'pre-tool-use', '--host', 'claude'], {
      env,
      input: JSON.stringify({
        session_id: 'voice-1',
        transcript_path: join(REPO_ROOT, 'test', 'fixtures', 'transcripts', 'no-result.jsonl'),
        tool_name: 'Bash',
        tool_input: { command: 'git push --force origin main' },
        tool_use_id: 'toolu_voice',
      }),
    });
    expect(JSON.parse(gate.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    const events = await cli(['events'], { env });
    expect(events.status, events.stderr).toBe(0);
    expect(events.stdout).toMatch(/observe +Bash\(git push --force origin main\) +DENIED: .+\[hook claude\]/);
  });

  it('sessions and events, when empty, say what fills them', async () => {
    const h = tempHome();
    cleanup.push(h.dispose);
    const env = baseEnv({ FIRSTLIGHT_HOME: h.dir });
    expect((await cli(['sessions'], { env })).stdout).toMatch(
      /no sessions recorded yet\. .*bootstrap_session.*firstlight install HOST/,
    );
    expect((await cli(['events'], { env })).stdout).toMatch(
      /no events recorded yet\. .*observe and reflect.*hooks.*firstlight install HOST/,
    );
  });

  it('a missing default home is fixed by "firstlight init", not a command with a path in it', async () => {
    const env = baseEnv();
    const r = await cli(['status'], { env });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`no firstlight home at ${join(env.HOME!, '.firstlight')}`);
    expect(r.stderr).toMatch(/\n {2}fix: run firstlight init\n/);
  });
});

describe('suggestions name one thing once, and a read shows the one match (issue 38)', {
  timeout: TIMEOUT,
}, () => {
  it('install claud, claude-code, memory lsit, a mistyped persona, memory show alex, no substrate', async () => {
    const project = scratch();
    mkdirSync(join(project, '.git'));
    const env = baseEnv({ FIRSTLIGHT_HOME: home });
    const claud = await cli(['install', 'claud'], { env, cwd: project });
    expect(claud.status).toBe(2);
    expect(claud.stderr).toContain('unknown host "claud" (did you mean claude?)');
    const alias = await cli(['install', 'claude-code', '--dry-run'], { env, cwd: project });
    expect(alias.status, alias.stderr).toBe(0);
    expect(alias.stdout).toContain('Claude Code (project scope');
    const lsit = await cli(['memory', 'lsit'], { env, cwd: project });
    expect(lsit.stderr).toContain("unknown command 'lsit'\n(did you mean list?)");
    const persona = await cli(
      ['invoke', '--persona', 'explorr', '--surface', 'audit', '--engagement', 'agent', '--task', 't'],
      { env, cwd: project },
    );
    expect(persona.stderr).toContain('fix: did you mean explorer?');
    const alex = await cli(['memory', 'show', 'alex'], { env, cwd: project });
    expect(alex.status, alex.stderr).toBe(0);
    expect(alex.stdout).toContain('name: Alex Rivera');
    expect(alex.stderr).toContain('(showing "Alex Rivera", the one memory that matches "alex")');
    const none = await cli(
      [
        'invoke',
        '--persona',
        'explorer',
        '--surface',
        'synthesis-ledger',
        '--engagement',
        'agent',
        '--task',
        't',
      ],
      { env, cwd: project },
    );
    expect(none.stderr).toContain('no substrate to run the session on');
    expect(none.stderr).toMatch(
      /anthropic \| openai-compatible \| claude-cli .*scripted:NAME of a bundled session \(.*planner/,
    );
  });
});

describe('hosts: only what is there, only what was installed', { timeout: TIMEOUT }, () => {
  it('doctor skips a host that is not on this machine, says how to install it, and exits 0', async () => {
    const project = scratch();
    mkdirSync(join(project, '.git'));
    // No codex on this PATH: node and the system tools only.
    const env = baseEnv({ FIRSTLIGHT_HOME: home, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` });
    expect((await cli(['install', 'codex'], { env, cwd: project })).status).toBe(0);
    const r = await cli(['doctor'], { env, cwd: project });
    expect(r.stdout).toMatch(
      /Codex CLI \(project\): skipped: Codex CLI is not on this machine \(no `codex` on PATH\)/,
    );
    expect(r.stdout).toContain('install it: npm install -g @openai/codex');
    expect(r.status, r.stdout).toBe(0);
    const json = JSON.parse((await cli(['doctor', '--json'], { env, cwd: project })).stdout);
    expect(json.ok).toBe(true);
    expect(json.hosts[0].skipped).toMatchObject({ install: 'npm install -g @openai/codex' });
  });

  it('doctor fails when the server answers bootstrap_session degraded, host skipped or not (issue 38)', async () => {
    const project = scratch();
    mkdirSync(join(project, '.git'));
    const broken = exampleHomeCopy();
    cleanup.push(broken.dispose);
    writeFileSync(join(broken.dir, 'persona', 'agent_system.md'), '# Persona\n@include missing.md\n');
    const env = baseEnv({ FIRSTLIGHT_HOME: broken.dir, PATH: `${dirname(process.execPath)}:/usr/bin:/bin` });
    expect((await cli(['install', 'codex'], { env, cwd: project })).status).toBe(0);
    const r = await cli(['doctor'], { env, cwd: project });
    expect(r.stdout).toMatch(/FAIL server +bootstrap_session answered, but mind_contract_available is false/);
    expect(r.stdout).toMatch(/^firstlight doctor: .* — PROBLEMS FOUND/);
    expect(r.stdout).not.toMatch(/— ok|all checks pass/);
    expect(r.status, r.stdout).toBe(1);
    const json = JSON.parse((await cli(['doctor', '--json'], { env, cwd: project })).stdout);
    expect(json).toMatchObject({ ok: false, error: { code: 'DOCTOR_FAILED' } });
    expect(json.error.message).toContain('server');
  });

  it('uninstall all touches and reports only the hosts install recorded', async () => {
    const project = scratch();
    mkdirSync(join(project, '.git'));
    const env = baseEnv({ FIRSTLIGHT_HOME: home });
    expect((await cli(['install', 'claude'], { env, cwd: project })).status).toBe(0);
    const r = await cli(['uninstall', 'all', '--json'], { env, cwd: project });
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.hosts).toEqual(['claude']);
    expect(
      report.files.flatMap((f: { hosts: string[] }) => f.hosts).every((h: string) => h === 'claude'),
    ).toBe(true);
    const human = await cli(['uninstall', 'all'], { env, cwd: project });
    expect(human.stdout).toContain('no install is recorded');
    expect(human.stdout).not.toMatch(/Copilot|Cursor|Gemini/);
    expect(existsSync(join(project, '.github'))).toBe(false);
  });
});
