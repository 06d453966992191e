/**
 * `firstlight invoke` where the OS sandbox a read-only session on an agent CLI needs cannot
 * start: the session is refused (`sandbox_unavailable`, exit 3, journaled) before the CLI runs,
 * unless the profile opts out with a reason. The sandbox executable is pointed at a missing
 * path and at one that exits 1 (as bwrap does where user namespaces are off); the agent CLI is
 * a stand-in that leaves a mark when started, so "nothing ran" is checked on disk. Sessions on
 * the real CLIs inside the sandbox are in test/hosts/substrate-sandbox.test.ts.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InvokeResult } from '../../src/runtime/index.js';
import { CLI } from '../helpers/index.js';
import { DELIVERABLES, type RuntimeFixture, runtimeFixture } from './runtime-fixture.js';

let fx: RuntimeFixture;
let mark: string;
let settings: string;

beforeEach(() => {
  fx = runtimeFixture();
  settings = readFileSync(join(fx.home, 'firstlight.yaml'), 'utf8');
  mark = join(fx.project, 'cli-started');
  // A stand-in for Claude Code: it only records that it was started.
  const cli = fx.file('fake-claude.sh', `#!/bin/sh\ntouch ${JSON.stringify(mark)}\n`);
  chmodSync(cli, 0o755);
  configure(cli, '/nonexistent/bwrap');
});
afterEach(() => fx.dispose());

/** The home's settings with the agent CLI and the sandbox executable set. */
function configure(cli: string, bwrap: string) {
  writeFileSync(
    join(fx.home, 'firstlight.yaml'),
    `${settings}\nsubstrates:\n  claude_cli:\n    command: ${JSON.stringify(cli)}\n  sandbox:\n    command: ${JSON.stringify(bwrap)}\n`,
  );
}

/**
 * `firstlight invoke --json` for a session of `role` (explorer: read-only, needs no handoff) of
 * `persona` on `substrate`; spawned, not spawnSync, so the worker stays responsive meanwhile.
 */
function session(
  substrate: string,
  { persona = 'team', role = 'explorer' } = {},
): Promise<{ code: number | null; result: InvokeResult; stderr: string }> {
  const args = [
    ...['invoke', '--home', fx.home, '--project', fx.project, '--json'],
    ...['--persona', persona, '--role', role, '--surface', 'audit', '--engagement', 'agent'],
    ...['--task', 'Look at the cache.', '--substrate', substrate],
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: fx.project,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      let result = {} as InvokeResult;
      try {
        if (stdout) result = JSON.parse(stdout) as InvokeResult;
      } catch {
        reject(new Error(`invoke printed no JSON (exit ${code}): ${stdout}\n${stderr}`));
        return;
      }
      resolve({ code, result, stderr });
    });
  });
}
const explore = (substrate = 'claude-cli', persona = 'team') => session(substrate, { persona });

describe('a read-only session on an agent CLI without its OS sandbox', () => {
  it('is refused sandbox_unavailable naming the missing executable, journaled, and the CLI never starts', async () => {
    const { code, result } = await explore();
    expect(code).toBe(3);
    expect(result.status).toBe('refused');
    expect(result.meta.refusal_reason).toBe('sandbox_unavailable');
    expect(result.meta.detail).toContain(
      'the OS sandbox "/nonexistent/bwrap" was not found; install bubblewrap',
    );
    expect(result.meta.detail).toContain('substrates.sandbox.command');
    expect(existsSync(mark)).toBe(false);
    const rows = fx.journal().entries.filter((e) => e.session === result.meta.session_id);
    // Refused before it started: one refusal row, no start.
    expect(rows.map((e) => [e.type, e.kind])).toEqual([['C', 'refusal']]);
    expect(rows[0]!.title).toBe('refusal: sandbox_unavailable (team as explorer)');
    expect(rows[0]!.content).toContain('/nonexistent/bwrap');
  });

  it('is refused when the sandbox is there but cannot start, quoting why', async () => {
    configure(join(fx.project, 'fake-claude.sh'), '/bin/false');
    const { code, result } = await explore();
    expect(code).toBe(3);
    expect(result.meta.refusal_reason).toBe('sandbox_unavailable');
    expect(result.meta.detail).toContain('the OS sandbox "/bin/false" cannot start here (exit 1)');
    expect(result.meta.detail).toContain('user namespaces');
    expect(existsSync(mark)).toBe(false);
  });

  it('runs unconfined when the profile opts out with a reason, and says so', async () => {
    writeFileSync(
      join(fx.home, 'personas', 'loose.yaml'),
      [
        'persona: loose',
        'system_prompt_uri: team-prompt.md',
        'roles: [explorer]',
        'sandbox: { mode: "off", reason: "the runner is a throwaway container" }',
        '',
      ].join('\n'),
    );
    const { result } = await explore('claude-cli', 'loose');
    // The stand-in ran (it is no Claude Code, so the session then fails): not refused.
    expect(result.meta.refusal_reason).toBeUndefined();
    expect(existsSync(mark)).toBe(true);
    expect(result.meta.sandbox).toEqual({ kind: 'off', reason: 'the runner is a throwaway container' });
    const start = fx
      .journal()
      .entries.find((e) => e.session === result.meta.session_id && e.kind === 'session_start');
    expect(start?.content).toContain('sandbox=off: the runner is a throwaway container');
  });

  it('an opt-out without a reason is a profile error naming the field', async () => {
    writeFileSync(
      join(fx.home, 'personas', 'silent.yaml'),
      'persona: silent\nsystem_prompt_uri: team-prompt.md\nroles: [explorer]\nsandbox: { mode: "off" }\n',
    );
    const { code, stderr } = await explore('claude-cli', 'silent');
    expect(code).toBe(2);
    expect(stderr).toContain('sandbox.reason');
    expect(existsSync(mark)).toBe(false);
  });
});

describe('sessions that need no OS sandbox', () => {
  it('a role that may write (general) on an agent CLI is not confined, so not refused', async () => {
    const { result } = await session('claude-cli', { role: 'general' });
    expect(result.meta.refusal_reason).toBeUndefined();
    expect(result.meta.sandbox).toBeUndefined();
    expect(existsSync(mark)).toBe(true);
  });

  it('a read-only role on the scripted substrate (the runtime runs every tool call) is not confined', async () => {
    const script = fx.script({
      steps: [{ text: `Explored.\n\n\`\`\`json\n${JSON.stringify(DELIVERABLES.explorer)}\n\`\`\`` }],
    });
    const { code, result } = await explore(`scripted:${script.path}`);
    expect(code, result.meta.detail).toBe(0);
    expect(result.meta.sandbox).toBeUndefined();
  });
});
