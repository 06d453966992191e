import type { TranscriptFormat } from '../resume/index.js';
import type { HookEvent, HostId, Scope } from './ids.js';

/** The MCP server install writes into every host's config. */
export interface ServerSpec {
  /** Key under the host's server map (`firstlight`). */
  name: string;
  command: string;
  args: string[];
}

/** What an adapter needs to describe its files: all paths absolute, nothing read from the process. */
export interface InstallContext {
  /** The project directory (absolute). */
  project: string;
  /** The user's home directory (absolute); user-scope files live under it. */
  userHome: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  server: ServerSpec;
  /** The REPL harness's server (`--with-repl`): every MCP config gets it beside `server`. */
  repl?: ServerSpec;
  /**
   * argv of `firstlight hook EVENT [--host HOST]`; the hooks-file style quotes it for the host's
   * shell. Without a host the payload's shape picks it (a file several hosts read).
   */
  hookArgv: (event: HookEvent, host?: HostId) => string[];
  /**
   * The commands name no path of this machine (`firstlight` on PATH, no `--home DIR`): files a
   * team commits may hold them. When false, hooks go to the host's uncommitted local settings
   * file where it has one (`.claude/settings.local.json`), and install says which files name
   * this machine's paths.
   */
  portable: boolean;
}

/** A hook registration in a host's config, in canonical terms (the file style translates it). */
export interface HookEntry {
  event: HookEvent;
  /** The host's own event name (`PreToolUse`, `preToolUse`, `BeforeTool`). */
  hostEvent: string;
  /** The command's words, unquoted (`hookArgv`). */
  argv: string[];
  /** Claude-style matcher (`startup|resume|clear|compact`, `*`); omitted where the host has none. */
  matcher?: string;
  /** In the host's own unit (`HostCaps.hookTimeoutUnit`): what the file's timeout field holds. */
  timeout: number;
  /** The host runs it without waiting (Claude Code's `"async": true`): observation only. */
  async?: true;
}

/** How a hooks file is shaped. */
export type HookFileStyle =
  /** `{hooks:{Event:[{matcher, hooks:[{type:"command", command, timeout}]}]}}` (Claude, Codex, Gemini). */
  | 'nested'
  /** `{version:1, hooks:{event:[{type:"command", bash, powershell, timeoutSec}]}}` (Copilot CLI). */
  | 'copilot'
  /** `{version:1, hooks:{event:[{command}]}}` (Cursor; the gate's entry adds `failClosed: true`). */
  | 'cursor';

/** One file install writes, described as data; shared code does the I/O. */
export type Surface =
  | {
      kind: 'instructions';
      path: string;
      /** `cursor-rule` files get `alwaysApply: true` frontmatter when created. */
      format: 'markdown' | 'cursor-rule';
      label: string;
      /** The one host reading this file names our tools so (`mcp__firstlight__`); absent for shared files. */
      toolPrefix?: string;
    }
  | {
      kind: 'mcp-json';
      path: string;
      /** Object path to the server map, e.g. `["mcpServers"]` or `["servers"]`. */
      keyPath: string[];
      entry: Record<string, unknown>;
      /** More servers in the same map, by name (the REPL harness with `--with-repl`). */
      more?: Record<string, Record<string, unknown>>;
      label: string;
      /**
       * A file only doctor reads at this scope (Copilot CLI's user MCP config for a project
       * install): install and uninstall leave it alone; `hint` says how to fix it.
       */
      readOnly?: { hint: string };
    }
  | {
      kind: 'mcp-toml';
      path: string;
      /** The TOML table body for `[mcp_servers.<name>]`. */
      entry: Record<string, unknown>;
      /** More server tables, by name (the REPL harness with `--with-repl`). */
      more?: Record<string, Record<string, unknown>>;
      /** Feature flags to switch on under `[features]` (Codex hooks). */
      features: string[];
      /** Older names the host still honours, old → current (doctor accepts them, with a note). */
      renamedFeatures?: Record<string, string>;
      label: string;
    }
  | {
      kind: 'hooks';
      path: string;
      style: HookFileStyle;
      /** Empty: the file must hold none of ours (they went to the host's local settings file). */
      entries: HookEntry[];
      label: string;
      /** The host's uncommitted local settings file (`.claude/settings.local.json`). */
      local?: true;
    }
  | {
      /**
       * One line firstlight adds to a project's existing `.gitignore` (`.firstlight/`, its
       * manifest and state); never creates the file.
       */
      kind: 'ignore-line';
      path: string;
      line: string;
      label: string;
    }
  | {
      /** Strings firstlight adds to a JSON array (Claude Code's `permissions.allow`). */
      kind: 'json-list';
      path: string;
      keyPath: string[];
      values: string[];
      label: string;
    };

/** Static facts about a host: data, read by shared code, the docs table and doctor. */
export interface HostCaps {
  /** Canonical event → the host's event name; an absent event is not installed for this host. */
  events: Partial<Record<HookEvent, string>>;
  /** Claude-style matcher per event, where the host supports matchers. */
  matchers: Partial<Record<HookEvent, string>>;
  hookStyle: HookFileStyle;
  /** How the host reads a hook's timeout: seconds (Claude, Codex, Copilot's `timeoutSec`) or milliseconds (Gemini CLI). */
  hookTimeoutUnit: 's' | 'ms';
  /**
   * The PreToolUse gate and the proof it accepts: the host's transcript (its format), or
   * firstlight's own bootstrap record for the session id the hook input carries, or why there
   * is no gate on this host (no hook is installed that could never be satisfied).
   */
  gate: { transcript: TranscriptFormat } | { record: RecordGate } | { none: string };
  /**
   * The format of the transcript the host's stop and compact hooks point at, where the gate
   * reads none (Copilot CLI sends its events.jsonl only to agentStop). Default: the gate's, else
   * Claude Code's, whose hooks the others imitate.
   */
  transcript?: TranscriptFormat;
  /**
   * How the host names our MCP tools to the model: every text the model reads names a tool
   * this way (`mcp__firstlight__bootstrap_session` on Claude Code, `mcp_firstlight_…` on
   * Gemini CLI).
   */
  toolPrefix: string;
  /**
   * The host fires its pre-compact event with `trigger: "auto"` before every model turn, whether
   * or not it then compacts (Gemini CLI's PreCompress): only a `manual` one is a compaction.
   */
  autoPreCompactEveryTurn?: true;
  /**
   * What the host's tool hooks can carry: context before the call (Claude Code's PreToolUse
   * `additionalContext`; Gemini CLI and Cursor have none, so cautions come with the result), and
   * an ask decision (Codex CLI refuses `permissionDecision: "ask"`).
   */
  toolHooks: { preContext: boolean; ask: boolean };
  /**
   * Events the host runs without waiting for the hook (Claude Code's `"async": true`): only
   * observation, whose answer may reach the model a turn later. The gate, the cautions and
   * SessionStart answer before the host goes on, so they are never here.
   */
  asyncEvents?: readonly HookEvent[];
  /** Scopes the host supports. */
  scopes: readonly Scope[];
  /** Scopes where an instruction surface has no file (Cursor User Rules): the action block prints the block to paste. */
  pasteBlock: readonly Scope[];
  /** The key holding the server map in the MCP config (for the docs table). */
  mcpKey: 'mcpServers' | 'servers' | 'mcp_servers';
  /** One-line descriptions for the generated host-format table. */
  table: { mcp: string; instructions: string; hooks: string };
  /**
   * The host's own program: the commands that start it (any one on PATH means it is on this
   * machine) and how to install it. Doctor skips a host none of them finds instead of failing it.
   */
  program: { commands: readonly string[]; install: string };
}

/** A host whose gate checks firstlight's own bootstrap record (no transcript can prove it). */
export interface RecordGate {
  /** The hook input field carrying the session id, as the host spells it (`sessionId`). */
  idField: string;
  /** What the host does with a deny that the user should know (doctor, install, docs). */
  caveat?: string;
}

/** A hook payload after per-host normalisation. */
export interface HookInput {
  host: HostId;
  event: HookEvent;
  sessionId: string | null;
  transcriptPath: string | null;
  cwd: string | null;
  /** SessionStart: startup | resume | clear | compact (host words mapped onto these). */
  source: string | null;
  toolName: string | null;
  toolInput: unknown;
  /** The MCP server the tool belongs to, when the host says (Claude `mcp_server`, Gemini `mcp_context.server_name`). */
  mcpServer: string | null;
  /** The tool's own name on its MCP server, when the host says apart from the name it shows (Gemini `mcp_context.tool_name`). */
  mcpTool: string | null;
  /** Stop: the host's own copy of the last assistant text, when it sends one. */
  lastAssistantMessage: string | null;
  /**
   * Stop and PreCompact: text the host writes into its transcript as it starts this hook, where
   * it may run the hook before the transcript's last lines are on disk (Copilot CLI logs a
   * `hook.start` event holding the payload's `timestamp`): the capture waits for it, bounded.
   */
  transcriptMark?: string;
  /** PreCompact: `manual` or `auto`, when the host says. */
  compactTrigger: string | null;
  /** PostToolUse: what the tool returned, as the host sent it. */
  toolResponse: unknown;
  /** PostToolUse: the error the host reported (a failure event, or a failed result). */
  toolError: string | null;
  /** PostToolUse: how long the tool ran (ms), where the host says. */
  durationMs: number | null;
  /** The host's id for this tool call. */
  toolUseId: string | null;
}

/** What a handler decided; adapters turn it into the host's output shape. */
export type HookResult = (
  | { kind: 'context'; text: string }
  | { kind: 'allow' }
  /** PreToolUse: the user confirms first (only where the host has an ask decision). */
  | { kind: 'ask'; reason: string }
  | { kind: 'deny'; reason: string }
  | { kind: 'none' }
) & {
  /** A diagnostic for stderr beside whatever the host reads (the hook pipeline adds it). */
  note?: string;
};

/** What the emit module writes: stdout text (may be empty), an optional stderr note, the exit code. */
export interface HookOutput {
  stdout: string;
  stderr?: string;
  exitCode: number;
}

/** One host: its paths and formats as data plus the few translations that need code. */
export interface HostAdapter {
  readonly id: HostId;
  /** Human name ("Copilot CLI"). */
  readonly name: string;
  readonly caps: HostCaps;
  /** Files install writes for this scope. */
  surfaces(scope: Scope, ctx: InstallContext): Surface[];
  /** Steps install cannot do itself (printed in the action block). */
  manualSteps(scope: Scope, ctx: InstallContext): string[];
  /**
   * Will the host run the hooks install wrote? For hosts that skip hooks until the user trusts
   * them (Codex CLI); absent where installed hooks simply run.
   */
  hookTrust?(scope: Scope, ctx: InstallContext): Promise<{ ok: boolean; detail: string }>;
  normalizeHookInput(event: HookEvent, raw: Record<string, unknown>): HookInput;
  formatHookOutput(event: HookEvent, result: HookResult): HookOutput;
}
