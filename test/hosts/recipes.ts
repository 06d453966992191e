/**
 * @module How to run each host headless against the scripted model: where it takes its model
 * URL, the one-time trust steps a user performs, its session command line, its own names for
 * the shell tool and for firstlight's bootstrap_session, and where it writes transcripts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type RecordedRequest, requestText, type ToolCall, toolNames } from './model-server.js';
import type { Sandbox } from './sandbox.js';

export const SESSION_HOSTS = ['claude', 'codex', 'gemini', 'copilot'] as const;
export type SessionHostId = (typeof SESSION_HOSTS)[number];

export interface HostRecipe {
  id: SessionHostId;
  name: string;
  /** The host's own name for firstlight's bootstrap_session tool (what a denial must name). */
  bootstrapName: string;
  /** The host's shell tools, preferred first; the scenario calls the first one offered. */
  shellTools: string[];
  /** Project files holding firstlight's hook commands (recorded by the hook recorder). */
  hookFiles: string[];
  /** Arguments to the shell tool that run `command`. */
  shellInput(tool: string, command: string): Record<string, unknown>;
  /** The tool call that invokes bootstrap_session, as this host expects it on the wire. */
  bootstrapCall(request: RecordedRequest): ToolCall;
  /**
   * Points the host at the model server and performs the one-time steps a user performs
   * (approve or trust the project); returns the extra environment of a session.
   */
  configure(sandbox: Pick<Sandbox, 'home' | 'project'>, modelUrl: string): Record<string, string>;
  /**
   * The headless session command line (after the binary). `allow`: tools the user lets run
   * without asking, where the host asks by default (Claude Code's `--allowedTools`).
   */
  sessionArgs(prompt: string, allow?: string[]): string[];
  /** Directories under HOME where the host writes its transcripts. */
  transcriptDirs: string[];
  /** Which files there are transcripts (default: every .jsonl and .json). */
  transcriptName?: RegExp;
  /** The host's version line. */
  versionArgs: string[];
  /** Also `firstlight install <host> --scope user` (Copilot CLI reads MCP servers only there). */
  userInstall?: boolean;
}

const claude: HostRecipe = {
  id: 'claude',
  name: 'Claude Code',
  bootstrapName: 'mcp__firstlight__bootstrap_session',
  shellTools: ['Bash'],
  // The suite pins --home, so the hook commands name this machine: install puts them in the
  // uncommitted local settings file (a team's shared .claude/settings.json gets none).
  hookFiles: ['.claude/settings.local.json'],
  shellInput: (_tool, command) => ({ command, description: 'scripted check' }),
  bootstrapCall: () => ({ name: 'mcp__firstlight__bootstrap_session', input: {} }),
  configure(sandbox, modelUrl) {
    // Trust steps, both asked once on the first interactive run in a project:
    // 1. "Do you trust the files in this folder?" is stored as hasTrustDialogAccepted in
    //    ~/.claude.json. Until then `claude -p` still runs the project's hooks and MCP servers
    //    but ignores the permissions.allow in .claude/settings*.json, so bootstrap_session is
    //    refused ("you haven't granted it yet").
    // 2. Approving the project's .mcp.json servers is stored as enabledMcpjsonServers in
    //    .claude/settings.local.json (`claude mcp list` shows "Pending approval" until then).
    writeJsonFile(join(sandbox.home, '.claude.json'), {
      projects: { [sandbox.project]: { hasTrustDialogAccepted: true } },
    });
    const local = join(sandbox.project, '.claude', 'settings.local.json');
    writeJsonFile(local, { ...readJsonFile(local), enabledMcpjsonServers: ['firstlight'] });
    return { ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_API_KEY: 'sk-ant-scripted' };
  },
  // Only Bash is allowed by flag: that is the user's own choice for their shell. Whether
  // firstlight's read-only tools may run is left to what `firstlight install claude` wrote.
  sessionArgs: (prompt, allow = []) => [
    '-p',
    prompt,
    '--output-format',
    'stream-json',
    '--verbose',
    '--allowedTools',
    'Bash',
    ...allow,
  ],
  transcriptDirs: ['.claude/projects'],
  versionArgs: ['--version'],
};

const codex: HostRecipe = {
  id: 'codex',
  name: 'Codex CLI',
  bootstrapName: 'mcp__firstlight__bootstrap_session',
  shellTools: ['exec_command', 'shell_command', 'shell'],
  hookFiles: ['.codex/hooks.json'],
  shellInput: (tool, command) =>
    tool === 'exec_command'
      ? { cmd: command }
      : tool === 'shell'
        ? { command: ['bash', '-lc', command] }
        : { command },
  // Codex offers each MCP server as one namespace tool (`mcp__firstlight`) holding plain names.
  bootstrapCall: (request) =>
    toolNames(request).includes('mcp__firstlight')
      ? { name: 'bootstrap_session', namespace: 'mcp__firstlight', input: {} }
      : { name: 'mcp__firstlight__bootstrap_session', input: {} },
  configure(sandbox, modelUrl) {
    // Trust step: Codex reads a project's .codex/config.toml and .codex/hooks.json only when the
    // user config marks the project trusted. Hooks must be trusted too: interactively in /hooks,
    // headless with `codex exec --dangerously-bypass-hook-trust`.
    const config = [
      'model = "gpt-5"',
      'model_provider = "scripted"',
      'check_for_update_on_startup = false',
      '',
      '[model_providers.scripted]',
      'name = "scripted"',
      `base_url = "${modelUrl}/v1"`,
      'wire_api = "responses"',
      'env_key = "SCRIPTED_MODEL_KEY"',
      '',
      `[projects.${JSON.stringify(sandbox.project)}]`,
      'trust_level = "trusted"',
      '',
    ].join('\n');
    mkdirSync(join(sandbox.home, '.codex'), { recursive: true });
    writeFileSync(join(sandbox.home, '.codex', 'config.toml'), config);
    return { SCRIPTED_MODEL_KEY: 'scripted', CODEX_HOME: join(sandbox.home, '.codex') };
  },
  // `codex exec` refuses an MCP tool that needs approval ("approval policy is never"): a user who
  // allows tools there allows them all, so only firstlight's gate stands before them.
  sessionArgs: (prompt, allow = []) => [
    'exec',
    '--json',
    '--dangerously-bypass-hook-trust',
    ...(allow.length > 0 ? ['--dangerously-bypass-approvals-and-sandbox'] : []),
    '--skip-git-repo-check',
    prompt,
  ],
  transcriptDirs: ['.codex/sessions'],
  versionArgs: ['--version'],
};

const gemini: HostRecipe = {
  id: 'gemini',
  name: 'Gemini CLI',
  bootstrapName: 'mcp_firstlight_bootstrap_session',
  shellTools: ['run_shell_command'],
  hookFiles: ['.gemini/settings.json'],
  shellInput: (_tool, command) => ({ command, description: 'scripted check' }),
  bootstrapCall: () => ({ name: 'mcp_firstlight_bootstrap_session', input: {} }),
  configure(sandbox, modelUrl) {
    // Trust step: Gemini CLI disables a project's MCP servers (and hooks) until the folder is
    // trusted; the answer is stored in ~/.gemini/trustedFolders.json.
    writeJsonFile(join(sandbox.home, '.gemini', 'trustedFolders.json'), {
      [sandbox.project]: 'TRUST_FOLDER',
    });
    // Headless needs the auth type chosen up front ("Invalid auth method selected" otherwise).
    writeJsonFile(join(sandbox.home, '.gemini', 'settings.json'), {
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    });
    return { GOOGLE_GEMINI_BASE_URL: modelUrl, GEMINI_API_KEY: 'scripted' };
  },
  sessionArgs: (prompt) => ['-p', prompt, '--output-format', 'stream-json', '--approval-mode', 'yolo'],
  transcriptDirs: ['.gemini/tmp'],
  versionArgs: ['--version'],
};

const copilot: HostRecipe = {
  id: 'copilot',
  name: 'Copilot CLI',
  bootstrapName: 'firstlight-bootstrap_session',
  shellTools: ['bash'],
  hookFiles: ['.github/hooks/firstlight.json'],
  shellInput: (_tool, command) => ({ command, description: 'scripted check' }),
  // Its gate reads firstlight's record for the hook's sessionId (no transcript reaches
  // preToolUse), so the model passes the id the SessionStart packet asks for, as told there.
  bootstrapCall: (request) => {
    const id = /bootstrap_session\(session_id: \\*"([^"\\]+)\\*"\)/.exec(requestText(request))?.[1];
    return { name: 'firstlight-bootstrap_session', input: id ? { session_id: id } : {} };
  },
  // Its MCP servers come only from the user file ~/.copilot/mcp-config.json.
  userInstall: true,
  configure(sandbox, modelUrl) {
    // Trust step: Copilot CLI loads a project's .github/hooks/*.json only in a folder listed in
    // trusted_folders of ~/.copilot/config.json (asked on the first interactive run there);
    // untrusted, `copilot -p` runs none of them.
    const config = join(sandbox.home, '.copilot', 'config.json');
    writeJsonFile(config, { ...readJsonFile(config), trusted_folders: [sandbox.project] });
    // Its own-model mode: an OpenAI-compatible provider and no GitHub sign-in (`copilot help providers`).
    return {
      COPILOT_PROVIDER_BASE_URL: `${modelUrl}/v1`,
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_API_KEY: 'scripted',
      COPILOT_MODEL: 'gpt-4.1',
      COPILOT_OFFLINE: 'true',
    };
  },
  // A headless session cannot answer permission prompts: the user allows tools up front, so only
  // firstlight's gate stands before the shell.
  sessionArgs: (prompt) => ['-p', prompt, '--allow-all-tools', '--no-color'],
  transcriptDirs: ['.copilot/session-state'],
  // Beside events.jsonl a session keeps rewind snapshots and workspace files.
  transcriptName: /^events\.jsonl$/,
  versionArgs: ['--version'],
};

export const RECIPES: Record<SessionHostId, HostRecipe> = { claude, codex, gemini, copilot };

function readJsonFile(path: string): Record<string, unknown> {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
}

function writeJsonFile(path: string, value: unknown) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}
