/**
 * doctor over real installs (every host, shared files, uninstalling one of two hosts that share a
 * file). The server probe is the only stand-in: starting a real server is the e2e test's job.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type DoctorReport,
  doctor,
  HOST_IDS,
  type HostId,
  type InstallOptions,
  install,
  resolveCommands,
  uninstall,
} from '../../../src/host/index.js';
import { tempDir, trustCodexHooks, trustCopilotFolder } from '../../helpers/index.js';

const command = { cliPath: '/opt/firstlight/dist/cli/main.js', execPath: '/usr/bin/node' };
const env = { PATH: '' };

let project: { dir: string; dispose: () => void };
let user: { dir: string; dispose: () => void };
let home: { dir: string; dispose: () => void };
beforeEach(() => {
  project = tempDir('firstlight-doctor-');
  user = tempDir('firstlight-doctor-user-');
  home = tempDir('firstlight-doctor-home-');
});
afterEach(() => {
  project.dispose();
  user.dispose();
  home.dispose();
});

function options(hosts: HostId[], scope: 'project' | 'user' = 'project'): InstallOptions {
  return {
    hosts,
    scope,
    home: home.dir,
    command,
    ctx: {
      project: project.dir,
      userHome: user.dir,
      env,
      platform: 'linux',
      ...resolveCommands({ ...command, env }),
    },
  };
}

const probed: string[] = [];
function diagnose(): Promise<DoctorReport> {
  return doctor({
    project: project.dir,
    home: home.dir,
    userHome: user.dir,
    env,
    platform: 'linux',
    probe: async (server) => {
      probed.push([server.command, ...server.args].join(' '));
      return { ok: true, detail: 'answers bootstrap_session' };
    },
  });
}

function failing(report: DoctorReport): string[] {
  return report.hosts.flatMap((h) =>
    h.checks.filter((c) => !c.ok).map((c) => `${h.host}/${c.id}: ${c.detail}`),
  );
}

describe('doctor', () => {
  it('passes every check for every host after installing all of them', async () => {
    await install(options([...HOST_IDS]));
    await install(options(['copilot'], 'user'));
    expect(failing(await diagnose())).toEqual([
      expect.stringMatching(
        /^copilot\/trust: the folder is not trusted in .*config\.json \(trusted_folders\)/,
      ),
      expect.stringMatching(
        /^codex\/trust: Codex reads \.codex\/ only in trusted projects .*; Codex skips hooks it has not been told to trust, and SessionStart, PreToolUse, PostToolUse, Stop are not .*: open \/hooks in Codex/,
      ),
    ]);
    trustCodexHooks(project.dir, user.dir);
    trustCopilotFolder(project.dir, user.dir);
    const report = await diagnose();
    expect(failing(report)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(new Set(report.hosts.map((h) => h.host))).toEqual(new Set(HOST_IDS));
    // Every host, Copilot CLI at project scope too, has its server config checked and probed.
    for (const h of report.hosts)
      expect(
        h.checks.some((c) => c.check === 'server'),
        h.host,
      ).toBe(true);
    const gate = (host: HostId) =>
      report.hosts.find((h) => h.host === host)!.checks.find((c) => c.id === 'gate')!;
    // Every host is gated; doctor names the proof each one uses.
    for (const host of ['claude', 'codex', 'gemini'] as const) {
      expect(gate(host).detail, host).toMatch(
        /^enforced: .*transcript \(or firstlight's own bootstrap record\)/,
      );
      expect(gate(host).proof).toBe('transcript');
    }
    for (const host of ['copilot', 'vscode', 'cursor'] as const) {
      expect(gate(host).proof).toBe('record');
      expect(gate(host).detail, host).toMatch(
        /^enforced: .*firstlight's own record .*bootstrap_session\(session_id/,
      );
      expect(gate(host).info).toBeUndefined();
    }
    expect(gate('copilot').detail).toMatch(/`sessionId`.*--allow-all-tools/);
    expect(gate('cursor').detail).toMatch(/`conversation_id`/);
  });

  it('Claude Code and VS Code share .claude/settings.json: both pass, in either install order', async () => {
    await install(options(['vscode']));
    await install(options(['claude']));
    expect(failing(await diagnose())).toEqual([]);
    const settings = join(project.dir, '.claude', 'settings.json');
    const both = readFileSync(settings, 'utf8');
    await install(options(['vscode']));
    expect(readFileSync(settings, 'utf8')).toBe(both);
  });

  it('uninstalling VS Code leaves the hooks Claude Code uses exactly as they were', async () => {
    const settings = join(project.dir, '.claude', 'settings.json');
    await install(options(['claude', 'vscode']));
    const installed = readFileSync(settings, 'utf8');
    const report = await uninstall(options(['vscode']));
    expect(report.files.find((f) => f.path === settings)?.action).toBe('kept');
    expect(readFileSync(settings, 'utf8')).toBe(installed);
    const after = await diagnose();
    expect(after.hosts.map((h) => h.host)).toEqual(['claude']);
    expect(failing(after)).toEqual([]);
  });

  it('Copilot CLI at project scope: reads (never writes) ~/.copilot/mcp-config.json and says how to fix it', async () => {
    await install(options(['copilot']));
    const report = await diagnose();
    expect(failing(report)).toEqual([
      expect.stringMatching(
        /^copilot\/config: .*mcp-config\.json does not exist .*run `firstlight install copilot --scope user`$/,
      ),
      expect.stringMatching(/^copilot\/trust: /),
    ]);
    expect(readdirSync(user.dir)).toEqual([]);
    await install(options(['copilot'], 'user'));
    // Issue 37: Copilot CLI runs a project's hooks only in a trusted folder; doctor says so.
    expect(failing(await diagnose())).toEqual([expect.stringMatching(/^copilot\/trust: /)]);
    trustCopilotFolder(project.dir, user.dir);
    expect(failing(await diagnose())).toEqual([]);
  });

  it('Codex: compares the TOML command and args, and says when hooks is off', async () => {
    await install(options(['codex']));
    trustCodexHooks(project.dir, user.dir);
    const config = join(project.dir, '.codex', 'config.toml');
    const installed = readFileSync(config, 'utf8');
    expect(failing(await diagnose())).toEqual([]);

    writeFileSync(config, installed.replace('"serve"', '"serve", "--verbose"'));
    expect(failing(await diagnose())).toEqual([
      'codex/config: server command or args differ from what install writes: re-run install',
    ]);

    writeFileSync(config, installed.replace('hooks = true', 'hooks = false'));
    expect(failing(await diagnose())).toEqual([
      'codex/config: [features] hooks = false: Codex hooks are off (no SessionStart packet, no gate); set it to true',
    ]);

    writeFileSync(config, installed.replace(/^hooks = true\n/m, ''));
    expect(failing(await diagnose())).toEqual([
      'codex/config: [features] hooks is not set: re-run install to switch Codex hooks on',
    ]);

    writeFileSync(config, installed.replace('"serve" ]', '"serve" ]\nenabled = false'));
    expect(failing(await diagnose())).toEqual([
      'codex/config: [mcp_servers.firstlight] has enabled = false: Codex will not start it',
    ]);
  });

  it('Codex: a user who already had hooks = false keeps it, and doctor says so', async () => {
    const config = join(project.dir, '.codex', 'config.toml');
    mkdirSync(dirname(config), { recursive: true });
    writeFileSync(config, '[features]\nhooks = false\n');
    const report = await install(options(['codex']));
    trustCodexHooks(project.dir, user.dir);
    expect(report.files.find((f) => f.path === config)?.notes.join(' ')).toMatch(/hooks is set to false/);
    expect(failing(await diagnose())).toEqual([
      expect.stringMatching(/^codex\/config: \[features\] hooks = false/),
    ]);
  });

  it('Codex: an install that wrote the deprecated codex_hooks still passes, says so, and a re-install renames it', async () => {
    await install(options(['codex']));
    trustCodexHooks(project.dir, user.dir);
    const config = join(project.dir, '.codex', 'config.toml');
    const installed = readFileSync(config, 'utf8');
    writeFileSync(config, installed.replace(/^hooks = true$/m, 'codex_hooks = true'));
    const report = await diagnose();
    expect(failing(report)).toEqual([]);
    const detail = report.hosts[0]!.checks.find((c) => c.id === 'config')!.detail;
    expect(detail).toMatch(
      /\[features\] codex_hooks is the deprecated name of hooks: re-run install to rename it/,
    );
    await install(options(['codex']));
    expect(readFileSync(config, 'utf8')).toBe(installed);
  });

  it('names the failing check when our hook entry is missing', async () => {
    await install(options(['claude']));
    // This install's commands name node and a path: they live in the uncommitted local file.
    const settings = join(project.dir, '.claude', 'settings.local.json');
    const parsed = JSON.parse(readFileSync(settings, 'utf8'));
    delete parsed.hooks.PreToolUse;
    writeFileSync(settings, JSON.stringify(parsed));
    expect(failing(await diagnose())).toEqual(['claude/hooks: missing or outdated hooks: PreToolUse']);
  });

  it('checks the PostToolUse hooks too (an install from before them fails until re-run)', async () => {
    await install(options(['claude', 'cursor']));
    const settings = join(project.dir, '.claude', 'settings.local.json');
    const parsed = JSON.parse(readFileSync(settings, 'utf8'));
    delete parsed.hooks.PostToolUse;
    delete parsed.hooks.PostToolUseFailure;
    writeFileSync(settings, JSON.stringify(parsed));
    const cursor = join(project.dir, '.cursor', 'hooks.json');
    const hooks = JSON.parse(readFileSync(cursor, 'utf8'));
    delete hooks.hooks.postToolUse;
    writeFileSync(cursor, JSON.stringify(hooks));
    expect(failing(await diagnose())).toEqual([
      'claude/hooks: missing or outdated hooks: PostToolUse, PostToolUseFailure',
      'cursor/hooks: missing or outdated hooks: postToolUse',
    ]);
    await install(options(['claude', 'cursor']));
    expect(failing(await diagnose())).toEqual([]);
  });
});
