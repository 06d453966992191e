/**
 * Codex CLI runs a hook only after the user trusted it (and a project's `.codex/` only in a
 * trusted project). The fixture is a config Codex itself wrote when a hook was trusted.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { codexHookHash, codexHookTrust } from '../../../src/host/adapters/codex-trust.js';
import { REPO_ROOT, tempDir } from '../../helpers/index.js';

const FIXTURE = join(REPO_ROOT, 'test', 'fixtures', 'codex-trust');

let dir: { dir: string; dispose: () => void };
beforeEach(() => {
  dir = tempDir('firstlight-codex-trust-');
});
afterEach(() => dir.dispose());

describe('Codex hook trust', () => {
  it('computes the same trusted_hash Codex wrote for a trusted handler', () => {
    const config = readFileSync(join(FIXTURE, 'config.toml'), 'utf8');
    const written = /trusted_hash = "([^"]+)"/.exec(config)![1];
    const hooks = JSON.parse(readFileSync(join(FIXTURE, 'hooks.json'), 'utf8')).hooks;
    const group = hooks.PreToolUse[0];
    expect(codexHookHash('PreToolUse', group.matcher, group.hooks[0])).toBe(written);
    // Another event, matcher or timeout is another identity.
    expect(codexHookHash('PostToolUse', group.matcher, group.hooks[0])).not.toBe(written);
    expect(codexHookHash('PreToolUse', 'Bash', group.hooks[0])).not.toBe(written);
    expect(codexHookHash('PreToolUse', group.matcher, { ...group.hooks[0], timeout: 31 })).not.toBe(written);
  });

  const ours = (event: string) => ({
    hooks: [
      {
        type: 'command',
        command: `/usr/bin/node /opt/firstlight/dist/cli/main.js hook ${event} --host codex`,
        timeout: 10,
      },
    ],
  });
  const setup = () => {
    const codexHome = join(dir.dir, 'codex-home');
    const project = join(dir.dir, 'proj');
    const hooksPath = join(project, '.codex', 'hooks.json');
    mkdirSync(join(project, '.codex'), { recursive: true });
    mkdirSync(codexHome, { recursive: true });
    const hooks = {
      hooks: {
        SessionStart: [ours('session-start')],
        PreToolUse: [{ hooks: [{ type: 'command', command: 'other' }] }, ours('pre-tool-use')],
      },
    };
    writeFileSync(hooksPath, JSON.stringify(hooks));
    const trust = (event: string, group: number, extra = '') => {
      const handler = hooks.hooks[event as 'PreToolUse'][group]!.hooks[0]!;
      const snake = event === 'SessionStart' ? 'session_start' : 'pre_tool_use';
      return `[hooks.state."${hooksPath}:${snake}:${group}:0"]\ntrusted_hash = "${codexHookHash(event, undefined, handler)}"\n${extra}`;
    };
    return { codexHome, project, hooksPath, trust };
  };

  it('says which hooks Codex will skip, and that an untrusted project hides .codex/ entirely', () => {
    const { codexHome, project, hooksPath, trust } = setup();
    let verdict = codexHookTrust({ hooksPath, codexHome, project });
    expect(verdict.ok).toBe(false);
    expect(verdict.detail).toMatch(/only in trusted projects and this one is not trusted yet/);
    expect(verdict.detail).toMatch(/SessionStart, PreToolUse are not/);

    writeFileSync(
      join(codexHome, 'config.toml'),
      `[projects."${project}"]\ntrust_level = "trusted"\n\n${trust('SessionStart', 0)}`,
    );
    verdict = codexHookTrust({ hooksPath, codexHome, project });
    expect(verdict).toEqual({
      ok: false,
      detail: expect.stringMatching(/and PreToolUse is not \(new, or changed/),
    });

    writeFileSync(
      join(codexHome, 'config.toml'),
      `[projects."${project}"]\ntrust_level = "trusted"\n\n${trust('SessionStart', 0)}\n${trust('PreToolUse', 1)}`,
    );
    expect(codexHookTrust({ hooksPath, codexHome, project })).toEqual({
      ok: true,
      detail: "Codex trusts firstlight's 2 hooks",
    });
    // At user scope the project's trust does not matter.
    expect(codexHookTrust({ hooksPath, codexHome }).ok).toBe(true);

    // A hook changed after it was trusted is untrusted again.
    const hooks = JSON.parse(readFileSync(hooksPath, 'utf8'));
    hooks.hooks.PreToolUse[1].hooks[0].timeout = 11;
    writeFileSync(hooksPath, JSON.stringify(hooks));
    expect(codexHookTrust({ hooksPath, codexHome, project }).detail).toMatch(/and PreToolUse is not/);
  });

  it('reports a hook turned off in /hooks', () => {
    const { codexHome, project, hooksPath, trust } = setup();
    writeFileSync(
      join(codexHome, 'config.toml'),
      `[projects."${project}"]\ntrust_level = "trusted"\n\n${trust('SessionStart', 0, 'enabled = false\n')}\n${trust('PreToolUse', 1)}`,
    );
    expect(codexHookTrust({ hooksPath, codexHome, project }).detail).toMatch(
      /SessionStart is turned off in \/hooks/,
    );
  });
});
