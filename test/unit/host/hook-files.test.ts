/**
 * The hooks files install writes, read back from disk and checked against each host's documented
 * hook format (Gemini CLI's docs/hooks/reference.md gives `timeout` in milliseconds).
 * Hand-written expectations here, not the adapters' own tables: a wrong table must fail this test.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOST_IDS, type InstallContext, install, resolveCommands } from '../../../src/host/index.js';
import { posixCommand, powershellCommand } from '../../../src/host/install/command.js';
import { isOurHookCommand } from '../../../src/host/install/hooks-config.js';
import { tempDir } from '../../helpers/index.js';

let project: { dir: string; dispose: () => void };
let user: { dir: string; dispose: () => void };
let home: { dir: string; dispose: () => void };

const NODE = '/usr/bin/node';
const CLI = '/opt/fire light/dist/cli/main.js';

beforeAll(async () => {
  project = tempDir('firstlight-hookfiles-');
  user = tempDir('firstlight-hookfiles-user-');
  home = tempDir('firstlight-hookfiles-home-');
  const ctx: InstallContext = {
    project: project.dir,
    userHome: user.dir,
    env: {},
    platform: 'linux',
    // The real resolver: hooks run `node <dist/cli/hook.cjs> EVENT …` beside the CLI.
    ...resolveCommands({ cliPath: CLI, execPath: NODE, env: { PATH: '' } }),
  };
  await install({ hosts: [...HOST_IDS], scope: 'project', ctx, home: home.dir });
});
afterAll(() => {
  project.dispose();
  user.dispose();
  home.dispose();
});

type Obj = Record<string, unknown>;
interface HooksFile {
  version?: unknown;
  mcpServers?: Obj;
  hooks: Record<string, Obj[]>;
}

const read = (rel: string): HooksFile => JSON.parse(readFileSync(join(project.dir, rel), 'utf8'));

/** Claude-style `{matcher?, hooks:[{type:"command", command, timeout}]}` groups. */
function nestedGroup(file: HooksFile, event: string) {
  const groups = file.hooks[event];
  expect(Array.isArray(groups), event).toBe(true);
  expect(groups).toHaveLength(1);
  const group = groups![0]!;
  expect(Object.keys(group).sort()).toEqual(
    group.matcher === undefined ? ['hooks'] : ['hooks', 'matcher'].sort(),
  );
  expect(group.hooks).toHaveLength(1);
  const hook = (group.hooks as Obj[])[0]!;
  expect(
    Object.keys(hook)
      .filter((k) => k !== 'async')
      .sort(),
  ).toEqual(['command', 'timeout', 'type']);
  expect(hook.type).toBe('command');
  expect(typeof hook.timeout).toBe('number');
  return { group, hook };
}

describe('hooks files on disk, per host format', () => {
  it('Claude Code: hooks naming this machine go to .claude/settings.local.json, matchers, timeouts in seconds', () => {
    // PATH has no firstlight here, so the commands name node and hook.cjs: not in the shared file.
    expect(read('.claude/settings.json').hooks).toBeUndefined();
    const file = read('.claude/settings.local.json');
    expect(Object.keys(file.hooks).sort()).toEqual([
      'PostToolUse',
      'PostToolUseFailure',
      'PreCompact',
      'PreToolUse',
      'SessionStart',
      'Stop',
    ]);
    expect(nestedGroup(file, 'PostToolUse').group.matcher).toBe('*');
    const start = nestedGroup(file, 'SessionStart');
    expect(start.group.matcher).toBe('startup|resume|clear|compact');
    expect(start.hook.command).toMatch(/\/hook\.cjs' session-start\b/);
    expect(nestedGroup(file, 'PreToolUse').group.matcher).toBe('*');
    // Every hook is waited for: a background one is stopped when a -p session ends (its record lost).
    for (const event of [
      'SessionStart',
      'PreToolUse',
      'PostToolUse',
      'PostToolUseFailure',
      'Stop',
      'PreCompact',
    ])
      expect(nestedGroup(file, event).hook.async, event).toBeUndefined();
    for (const event of ['SessionStart', 'PreToolUse', 'Stop', 'PreCompact']) {
      const { hook } = nestedGroup(file, event);
      // Seconds: a value of 1000+ would mean a quarter of an hour or more per hook.
      expect(hook.timeout, event).toBeGreaterThanOrEqual(5);
      expect(hook.timeout, event).toBeLessThanOrEqual(600);
    }
  });

  it('Gemini CLI: settings.json hooks with timeout in MILLISECONDS (the default is 60000)', () => {
    const file = read('.gemini/settings.json');
    expect(file.mcpServers?.firstlight).toBeDefined();
    expect(Object.keys(file.hooks).sort()).toEqual([
      'AfterAgent',
      'AfterTool',
      'BeforeTool',
      'PreCompress',
      'SessionStart',
    ]);
    for (const event of Object.keys(file.hooks)) {
      const { hook } = nestedGroup(file, event);
      expect(hook.timeout, event).toBeGreaterThanOrEqual(5000);
      expect(hook.timeout, event).toBeLessThanOrEqual(600_000);
    }
    expect(nestedGroup(file, 'BeforeTool').hook.timeout).toBe(10_000);
  });

  it('Codex CLI: .codex/hooks.json Claude-style, timeouts in seconds; config.toml switches hooks on', () => {
    const file = read('.codex/hooks.json');
    expect(Object.keys(file)).toEqual(['hooks']);
    for (const event of Object.keys(file.hooks)) {
      const { hook } = nestedGroup(file, event);
      expect(hook.timeout, event).toBeLessThanOrEqual(600);
    }
    expect(Object.keys(file.hooks)).toContain('SessionStart');
    const toml = readFileSync(join(project.dir, '.codex', 'config.toml'), 'utf8');
    expect(toml).toMatch(/^\[features\]\nhooks = true$/m);
  });

  it('Copilot CLI: .github/hooks/*.json with version 1, bash + powershell + timeoutSec, no matcher', () => {
    const file = read('.github/hooks/firstlight.json');
    expect(file.version).toBe(1);
    // preToolUse is the gate, proven from firstlight's own record (Copilot sends it no
    // transcript); agentStop captures the last words from the events.jsonl it names.
    expect(Object.keys(file.hooks)).toEqual([
      'sessionStart',
      'preToolUse',
      'postToolUse',
      'postToolUseFailure',
      'agentStop',
    ]);
    for (const list of Object.values(file.hooks)) {
      expect(list).toHaveLength(1);
      const hook = list[0]!;
      expect(Object.keys(hook).sort()).toEqual(['bash', 'powershell', 'timeoutSec', 'type']);
      expect(hook.type).toBe('command');
      expect(hook.bash).toMatch(
        /^\/usr\/bin\/node '\/opt\/fire light\/dist\/cli\/hook\.cjs' [a-z-]+ --host copilot$/,
      );
      // PowerShell needs the call operator before a quoted program, and single quotes.
      expect(hook.powershell).toMatch(
        /^& '\/usr\/bin\/node' '\/opt\/fire light\/dist\/cli\/hook\.cjs' [a-z-]+ --host copilot$/,
      );
      expect(hook.timeoutSec).toBeLessThanOrEqual(600);
    }
    expect(file.hooks.sessionStart).toBeDefined();
  });

  it('Cursor: .cursor/hooks.json with version 1 and {command} entries', () => {
    const file = read('.cursor/hooks.json');
    expect(file.version).toBe(1);
    // preToolUse is the gate, proven from firstlight's own record; it fails closed.
    expect(Object.keys(file.hooks).sort()).toEqual([
      'postToolUse',
      'postToolUseFailure',
      'preCompact',
      'preToolUse',
      'sessionStart',
      'stop',
    ]);
    for (const [event, list] of Object.entries(file.hooks)) {
      expect(list).toHaveLength(1);
      expect(Object.keys(list[0]!)).toEqual(event === 'preToolUse' ? ['command', 'failClosed'] : ['command']);
      expect(list[0]!.command).toMatch(/\/hook\.cjs' [a-z-]+ /);
    }
    expect(file.hooks.preToolUse?.[0]?.failClosed).toBe(true);
  });
});

describe('hook command quoting', () => {
  it('PowerShell: call operator, single quotes, doubled quote, nothing expanded', () => {
    expect(
      powershellCommand(['C:\\Program Files\\node.exe', "C:\\it's $HOME\\main.js", 'hook', 'stop']),
    ).toBe("& 'C:\\Program Files\\node.exe' 'C:\\it''s $HOME\\main.js' hook stop");
  });

  it('POSIX: single quotes with the quote escaped', () => {
    expect(posixCommand(['/usr/bin/node', "/it's here/main.js", 'hook'])).toBe(
      "/usr/bin/node '/it'\\''s here/main.js' hook",
    );
  });
});

describe('hook commands written by an older install', () => {
  it('are ours, and a re-install moves them out of the shared settings.json (theirs stay) into settings.local.json', async () => {
    for (const old of [
      "/usr/bin/node '/opt/fire light/dist/cli/main.js' hook pre-tool-use --host claude",
      'firstlight hook post-tool-use',
      "& '/usr/bin/node' 'C:\\fl\\dist\\cli\\hook.cjs' stop --host copilot",
      "/usr/bin/node '/opt/fire light/dist/cli/hook.cjs' session-start",
    ])
      expect(isOurHookCommand(old), old).toBe(true);
    expect(isOurHookCommand('node ./scripts/hook.cjs lint')).toBe(false);
    expect(isOurHookCommand('my-tool hook pre-tool-use')).toBe(false);

    const dir = tempDir('firstlight-hookfiles-upgrade-');
    try {
      const settings = join(dir.dir, '.claude', 'settings.json');
      mkdirSync(join(dir.dir, '.claude'));
      const theirs = { type: 'command', command: 'echo mine' };
      const older = (event: string) => ({
        type: 'command',
        command: `/usr/bin/node '/opt/fire light/dist/cli/main.js' hook ${event}`,
        timeout: 10,
      });
      writeFileSync(
        settings,
        JSON.stringify({
          hooks: {
            PreToolUse: [{ matcher: '*', hooks: [older('pre-tool-use')] }, { hooks: [theirs] }],
            SessionStart: [{ hooks: [older('session-start')] }],
          },
        }),
      );
      const ctx: InstallContext = {
        project: dir.dir,
        userHome: user.dir,
        env: {},
        platform: 'linux',
        ...resolveCommands({ cliPath: CLI, execPath: NODE, env: { PATH: '' } }),
      };
      await install({ hosts: ['claude'], scope: 'project', ctx, home: home.dir });
      const commandsIn = (path: string, event: string) =>
        (JSON.parse(readFileSync(path, 'utf8')) as HooksFile).hooks[event]?.flatMap((g) =>
          (g.hooks as Obj[]).map((h) => h.command),
        );
      expect(commandsIn(settings, 'PreToolUse')).toEqual(['echo mine']);
      expect(commandsIn(settings, 'SessionStart')).toBeUndefined();
      const local = join(dir.dir, '.claude', 'settings.local.json');
      expect(commandsIn(local, 'PreToolUse')).toEqual([
        "/usr/bin/node '/opt/fire light/dist/cli/hook.cjs' pre-tool-use",
      ]);
      expect(commandsIn(local, 'SessionStart')).toEqual([
        "/usr/bin/node '/opt/fire light/dist/cli/hook.cjs' session-start",
      ]);
    } finally {
      dir.dispose();
    }
  });
});
