import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UNPROMPTED_TOOLS } from '../../../src/host/hook/own-tools.js';
import {
  BLOCK_BODY,
  BLOCK_VERSION,
  HOST_IDS,
  type InstallContext,
  type InstallOptions,
  install,
  renderInstallReport,
  uninstall,
} from '../../../src/host/index.js';
import { put, tempDir, treeOf } from '../../helpers/index.js';

let project: { dir: string; dispose: () => void };
let user: { dir: string; dispose: () => void };
let home: { dir: string; dispose: () => void };

beforeEach(() => {
  project = tempDir('firstlight-project-');
  user = tempDir('firstlight-user-');
  home = tempDir('firstlight-home-');
  put(project.dir, 'CLAUDE.md', '# Our project\n\nAlways run the tests.\n');
  put(project.dir, 'AGENTS.md', '# Agents\n\n- be brief');
  put(
    project.dir,
    '.mcp.json',
    '{\n    "mcpServers": {\n        "db": {"command": "db-mcp", "args": ["--ro"]}\n    },\n    "note": "ours"\n}\n',
  );
  put(
    project.dir,
    '.claude/settings.json',
    JSON.stringify({
      permissions: { allow: ['Bash(npm test)'] },
      hooks: { Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] },
    }),
  );
  put(project.dir, '.codex/config.toml', '# my codex settings\nmodel = "o4"\n\n[features]\nweb = true\n');
});
afterEach(() => {
  project.dispose();
  user.dispose();
  home.dispose();
});

function options(hosts: InstallOptions['hosts'], extra: Partial<InstallOptions> = {}): InstallOptions {
  const ctx: InstallContext = {
    project: project.dir,
    userHome: user.dir,
    env: {},
    platform: 'linux',
    server: {
      name: 'firstlight',
      command: '/usr/bin/node',
      args: ['/opt/firstlight/dist/cli/main.js', 'serve'],
    },
    hookArgv: (event, host) => [
      '/usr/bin/node',
      '/opt/firstlight/dist/cli/main.js',
      'hook',
      event,
      ...(host ? ['--host', host] : []),
    ],
    portable: false,
  };
  return {
    hosts,
    scope: 'project',
    ctx,
    home: home.dir,
    command: { cliPath: '/opt/firstlight/dist/cli/main.js', execPath: '/usr/bin/node' },
    ...extra,
  };
}

describe('install and uninstall', () => {
  it('install → re-install changes nothing → uninstall restores every file byte for byte', async () => {
    const before = treeOf(project.dir);
    const first = await install(options(['claude']));
    expect(first.files.map((f) => [f.display, f.action])).toEqual([
      ['CLAUDE.md', 'updated'],
      ['AGENTS.md', 'updated'],
      ['.mcp.json', 'updated'],
      // These commands name this machine's node: the hooks go to the uncommitted local file.
      ['.claude/settings.local.json', 'created'],
      ['.claude/settings.json', 'updated'],
    ]);
    const installed = treeOf(project.dir);
    expect(JSON.parse(installed['.claude/settings.json']!).hooks).toEqual({
      Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }],
    });
    expect(Object.keys(JSON.parse(installed['.claude/settings.local.json']!).hooks)).toContain('PreToolUse');
    expect(installed['CLAUDE.md']!.startsWith('# Our project\n\nAlways run the tests.\n')).toBe(true);
    expect(JSON.parse(installed['.mcp.json']!).mcpServers.db).toEqual({ command: 'db-mcp', args: ['--ro'] });
    expect(JSON.parse(installed['.mcp.json']!).mcpServers.firstlight.alwaysLoad).toBe(true);
    // The user's own rules stay first; firstlight's startup and read-only tools follow.
    expect(JSON.parse(installed['.claude/settings.json']!).permissions).toEqual({
      allow: ['Bash(npm test)', ...UNPROMPTED_TOOLS.map((t) => `mcp__firstlight__${t}`)],
    });

    const second = await install(options(['claude']));
    expect(second.files.every((f) => f.action === 'unchanged')).toBe(true);
    expect(treeOf(project.dir)).toEqual(installed);

    await uninstall(options(['claude']));
    expect(treeOf(project.dir)).toEqual(before);
  });

  it("edits JSON in place: a one-line file stays one line, JSONC comments and the user's bytes stay", async () => {
    put(project.dir, '.mcp.json', '{"mcpServers":{"db":{"command":"db-mcp","args":["x,}"]}}}\n');
    const vscode =
      '// team servers\n{\n    "servers": {\n        // the db\n        "db": {"command": "db"},\n    },\n}\n';
    put(project.dir, '.vscode/mcp.json', vscode);
    await install(options(['claude', 'vscode']));
    const mcp = readFileSync(join(project.dir, '.mcp.json'), 'utf8');
    expect(mcp.trimEnd().split('\n')).toHaveLength(1);
    expect(mcp.startsWith('{"mcpServers":{"db":{"command":"db-mcp","args":["x,}"]},"firstlight": {')).toBe(
      true,
    );
    const edited = readFileSync(join(project.dir, '.vscode', 'mcp.json'), 'utf8');
    expect(
      edited.startsWith(
        '// team servers\n{\n    "servers": {\n        // the db\n        "db": {"command": "db"},\n        "firstlight": {\n            "type": "stdio",',
      ),
    ).toBe(true);
    // The user edits the file after install: uninstall takes out only our entry, the rest as it was.
    writeFileSync(
      join(project.dir, '.vscode', 'mcp.json'),
      edited.replace('// the db', '// the db (read-only)'),
    );
    await uninstall(options(['claude', 'vscode']));
    expect(readFileSync(join(project.dir, '.vscode', 'mcp.json'), 'utf8')).toBe(
      vscode.replace('// the db', '// the db (read-only)'),
    );
  });

  it('installs every host at once and uninstalls back to the exact original tree', async () => {
    const before = treeOf(project.dir);
    await install(options([...HOST_IDS]));
    const after = treeOf(project.dir);
    for (const file of [
      'GEMINI.md',
      '.cursor/rules/firstlight.mdc',
      '.vscode/mcp.json',
      '.github/hooks/firstlight.json',
    ]) {
      expect(after[file], file).toBeDefined();
    }
    expect(after['.cursor/rules/firstlight.mdc']).toMatch(/^---\n[\s\S]*alwaysApply: true\n---/);
    const toml = after['.codex/config.toml']!;
    expect(toml.startsWith('# my codex settings\nmodel = "o4"\n\n[features]\n')).toBe(true);
    expect(toml).toContain('[mcp_servers.firstlight]');
    expect(toml).toContain('hooks = true');
    expect((await install(options([...HOST_IDS]))).files.every((f) => f.action === 'unchanged')).toBe(true);
    await uninstall(options([...HOST_IDS]));
    expect(treeOf(project.dir)).toEqual(before);
  });

  it('keeps a shared file while another installed host still uses it', async () => {
    await install(options(['claude', 'codex']));
    const report = await uninstall(options(['codex']));
    expect(report.files.find((f) => f.display === 'AGENTS.md')?.action).toBe('kept');
    expect(readFileSync(join(project.dir, 'AGENTS.md'), 'utf8')).toContain('firstlight:bootstrap');
    expect(existsSync(join(project.dir, '.codex', 'hooks.json'))).toBe(false);
  });

  it('removes only firstlight parts from a file edited after install', async () => {
    await install(options(['claude']));
    const path = join(project.dir, 'CLAUDE.md');
    writeFileSync(path, `${readFileSync(path, 'utf8')}\nA line the user added later.\n`);
    const report = await uninstall(options(['claude']));
    expect(report.files.find((f) => f.display === 'CLAUDE.md')?.action).toBe('cleaned');
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain('firstlight:bootstrap');
    expect(text).toContain('Always run the tests.');
    expect(text).toContain('A line the user added later.');
  });

  it('--dry-run writes nothing and shows the diff', async () => {
    const before = treeOf(project.dir);
    const report = await install(options(['claude'], { dryRun: true }));
    expect(treeOf(project.dir)).toEqual(before);
    const diff = report.files.find((f) => f.display === 'CLAUDE.md')?.diff ?? '';
    expect(diff).toContain(`+<!-- firstlight:bootstrap v=${BLOCK_VERSION} -->`);
    expect(diff).toContain('--- a/CLAUDE.md');
  });

  it('backs a corrupt config up, reports where, and uninstall brings the original back', async () => {
    put(project.dir, '.mcp.json', '{ "mcpServers": { broken');
    const before = treeOf(project.dir);
    const report = await install(options(['claude']));
    const file = report.files.find((f) => f.display === '.mcp.json')!;
    expect(file.notes.join(' ')).toMatch(/backed up to .*\.mcp\.json\.firstlight-backup and replaced/);
    expect(readFileSync(join(project.dir, '.mcp.json.firstlight-backup'), 'utf8')).toBe(
      '{ "mcpServers": { broken',
    );
    await uninstall(options(['claude']));
    const { ['.mcp.json.firstlight-backup']: kept, ...rest } = treeOf(project.dir);
    expect(kept).toBe('{ "mcpServers": { broken');
    expect(rest).toEqual(before);
  });

  it('never loses a second, different corrupt config: it gets its own backup', async () => {
    const backup = (suffix = '') =>
      readFileSync(join(project.dir, `.mcp.json.firstlight-backup${suffix}`), 'utf8');
    put(project.dir, '.mcp.json', '{ "mcpServers": { broken');
    await install(options(['claude']));
    writeFileSync(join(project.dir, '.mcp.json'), '{ "mcpServers": { broken again');
    const second = await install(options(['claude']));
    expect(backup()).toBe('{ "mcpServers": { broken');
    expect(backup('.2')).toBe('{ "mcpServers": { broken again');
    expect(second.files.find((f) => f.display === '.mcp.json')!.notes.join(' ')).toMatch(
      /backed up to .*\.firstlight-backup\.2 and replaced/,
    );
    // The same bytes a third time: no new copy, and the report says where they already are.
    writeFileSync(join(project.dir, '.mcp.json'), '{ "mcpServers": { broken');
    const dry = await install(options(['claude'], { dryRun: true }));
    expect(dry.files.find((f) => f.display === '.mcp.json')!.notes.join(' ')).toMatch(
      /would keep the backup .*\.firstlight-backup and replace it/,
    );
    const third = await install(options(['claude']));
    expect(third.files.find((f) => f.display === '.mcp.json')!.notes.join(' ')).toMatch(
      /already backed up to .*\.mcp\.json\.firstlight-backup;/,
    );
    expect(existsSync(join(project.dir, '.mcp.json.firstlight-backup.3'))).toBe(false);
  });

  it('touches user-global files only with --scope user, and then nothing in the project', async () => {
    await install(options([...HOST_IDS]));
    expect(readdirSync(user.dir)).toEqual([]);
    const project0 = treeOf(project.dir);
    const report = await install(options([...HOST_IDS], { scope: 'user' }));
    for (const f of report.files) expect(f.path.startsWith(`${user.dir}/`), f.path).toBe(true);
    expect(treeOf(project.dir)).toEqual(project0);
    for (const file of ['.claude/CLAUDE.md', '.claude.json', '.claude/settings.json', '.codex/config.toml'])
      expect(existsSync(join(user.dir, file)), file).toBe(true);
    expect(existsSync(join(user.dir, '.copilot', 'mcp-config.json'))).toBe(true);
    expect(existsSync(join(user.dir, '.gemini', 'settings.json'))).toBe(true);
    await uninstall(options([...HOST_IDS], { scope: 'user' }));
    expect(readdirSync(user.dir)).toEqual([]);
    expect(treeOf(project.dir)).toEqual(project0);
  });
});

describe('the action block', () => {
  it('says per host that the tool gate is enforced, with which proof and the bypass', async () => {
    const text = renderInstallReport(await install(options([...HOST_IDS], { dryRun: true })));
    expect(text).toContain('Required first call in new sessions: bootstrap_session()');
    expect(text).toMatch(/- Claude Code: enforced: .*FIRSTLIGHT_GATE_BYPASS=1/);
    expect(text).toMatch(/- Codex CLI: enforced: .*rollout transcript/);
    expect(text).toMatch(/- Gemini CLI: enforced: /);
    expect(text).toMatch(
      /- Copilot CLI: enforced: .*own record.*`sessionId`.*FIRSTLIGHT_GATE_BYPASS=1.*as an ask/,
    );
    expect(text).toMatch(/- VS Code: enforced: .*own record.*`sessionId`/);
    expect(text).toMatch(/- Cursor: enforced: .*own record.*`conversation_id`/);
  });

  it('prints the block to paste where a surface has no file (Cursor User Rules, VS Code user scope)', async () => {
    for (const [hosts, scope] of [
      [['cursor'], 'project'],
      [['vscode'], 'user'],
    ] as const) {
      const report = await install(options([...hosts], { dryRun: true, scope }));
      expect(report.pasteBlock, hosts[0]).toBe(BLOCK_BODY);
      const text = renderInstallReport(report);
      expect(text).toContain('paste the bootstrap block printed below');
      expect(text).toContain(BLOCK_BODY);
    }
    const claude = await install(options(['claude'], { dryRun: true }));
    expect(claude.pasteBlock).toBeUndefined();
    expect(renderInstallReport(claude)).not.toContain(BLOCK_BODY);
  });
});
