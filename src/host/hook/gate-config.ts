/**
 * Which tools the gate guards. `FIRSTLIGHT_GATED_TOOLS` (comma-separated globs) overrides
 * `gate.tools` in firstlight.yaml, which overrides the default list below; `gate.add` in
 * firstlight.yaml gates more beside whichever list is in force.
 *
 * The gate runs on every tool call, so the YAML parser and the settings schema load only when
 * the file has the word `gate` anywhere; the real parse (loadSettings) then decides. Parsing every
 * firstlight.yaml instead would cost the hook about a quarter more: loading yaml and parsing the
 * example home's file took 193M instructions (callgrind, node --single-threaded) beside the
 * 733M of a whole gate check (unbundled). The word test can only err toward parsing (a comment
 * or value naming the gate); the `^gate:` test it replaces missed a quoted key (`"gate":`) and
 * flow style (`{gate: …}`), and then silently ignored the user's gate settings.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CompiledToolGlob, loadGlobCompiler, matchCompiledToolGlob } from '../../core/glob/index.js';
import type { HookInput } from '../types.js';
import { ownTool, SERVER_NAME } from './own-tools.js';

/**
 * High-blast-radius tools across hosts: shells, file writes, and MCP tools that send, publish or
 * destroy; each with the regex source core/glob's compiler gives it (a unit test proves they
 * agree), so a hook with the default list never loads the compiler (about 10 ms a tool call).
 */
export const DEFAULT_GATED: readonly CompiledToolGlob[] = [
  { glob: 'Bash', source: '^(?:^(?:Bash)$)$' },
  { glob: 'shell', source: '^(?:^(?:shell)$)$' },
  { glob: 'run_shell_command', source: '^(?:^(?:run_shell_command)$)$' },
  { glob: 'Write', source: '^(?:^(?:Write)$)$' },
  { glob: 'Edit', source: '^(?:^(?:Edit)$)$' },
  { glob: 'MultiEdit', source: '^(?:^(?:MultiEdit)$)$' },
  { glob: 'NotebookEdit', source: '^(?:^(?:NotebookEdit)$)$' },
  { glob: 'write_file', source: '^(?:^(?:write_file)$)$' },
  { glob: 'replace', source: '^(?:^(?:replace)$)$' },
  { glob: 'apply_patch', source: '^(?:^(?:apply_patch)$)$' },
  // Copilot CLI (its hooks reference's tool list; `bash`, `edit` match the names above).
  { glob: 'powershell', source: '^(?:^(?:powershell)$)$' },
  { glob: 'create', source: '^(?:^(?:create)$)$' },
  // VS Code's agent tools; Cursor's `Shell` and `Write` match the names above.
  { glob: 'run_in_terminal', source: '^(?:^(?:run_in_terminal)$)$' },
  { glob: 'runInTerminal', source: '^(?:^(?:runInTerminal)$)$' },
  { glob: 'editFiles', source: '^(?:^(?:editFiles)$)$' },
  { glob: 'create_file', source: '^(?:^(?:create_file)$)$' },
  { glob: 'replace_string_in_file', source: '^(?:^(?:replace_string_in_file)$)$' },
  { glob: 'multi_replace_string_in_file', source: '^(?:^(?:multi_replace_string_in_file)$)$' },
  { glob: 'insert_edit_into_file', source: '^(?:^(?:insert_edit_into_file)$)$' },
  { glob: 'edit_notebook_file', source: '^(?:^(?:edit_notebook_file)$)$' },
  { glob: 'Delete', source: '^(?:^(?:Delete)$)$' },
  // Claude Code's IDE MCP server runs code in the IDE's Jupyter kernel (the one `ide` tool
  // besides getDiagnostics that Claude Code lets through).
  { glob: 'mcp__ide__executeCode', source: '^(?:^(?:mcp__ide__executeCode)$)$' },
  // VS Code's agent tools that run code, tasks, tests or commands (vscode-copilot-chat
  // toolNames.ts; `run_vs_code_task` is the older name of `run_task`).
  { glob: 'run_notebook_cell', source: '^(?:^(?:run_notebook_cell)$)$' },
  { glob: 'create_and_run_task', source: '^(?:^(?:create_and_run_task)$)$' },
  { glob: 'run_task', source: '^(?:^(?:run_task)$)$' },
  { glob: 'run_vs_code_task', source: '^(?:^(?:run_vs_code_task)$)$' },
  { glob: 'send_to_terminal', source: '^(?:^(?:send_to_terminal)$)$' },
  { glob: 'runTests', source: '^(?:^(?:runTests)$)$' },
  { glob: 'run_tests', source: '^(?:^(?:run_tests)$)$' },
  { glob: 'run_vscode_command', source: '^(?:^(?:run_vscode_command)$)$' },
  { glob: 'install_extension', source: '^(?:^(?:install_extension)$)$' },
  // The REPL harness (`firstlight install --with-repl`, MCP server `firstlight-repl`): its tools
  // that run code. Each host spells them its own way (seen in the real hosts' PreToolUse
  // payloads unless noted): Claude Code `mcp__firstlight-repl__execute`, Codex
  // `mcp__firstlight_repl__execute` (it turns `-` into `_`), Gemini CLI
  // `mcp_firstlight-repl_execute`, older Codex and Gemini CLI on a name clash
  // `firstlight-repl__execute` or `firstlight_repl__execute`, VS Code `mcp_firstlight-re_execute`
  // (its `mcp_` prefix keeps 13 characters of the server's key or title, plus a digit on a
  // clash: vscode mcpServer.ts), Copilot CLI `firstlight-repl-execute` (its hooks reference).
  // Where the host names the server beside the tool (Gemini CLI's mcp_context), the gate also
  // matches `mcp__<server>__<tool>` (gatedBy), so any spelling of the name is caught.
  {
    glob: '{mcp_,mcp__,}firstlight[-_]re*[-_]{execute,install_capability,restore_state}',
    source: '^(?:(mcp_|mcp__|)firstlight[-_]re.*?[-_](execute|install_capability|restore_state))$',
  },
  // Cursor names an MCP tool `MCP:<tool>` in preToolUse (no server: any server's `execute` is
  // gated there) and `MCP:<server>:<tool>` in beforeMCPExecution.
  {
    glob: 'MCP:{firstlight-repl:,}{execute,install_capability,restore_state}',
    source: '^(?:MCP:(firstlight-repl:|)(execute|install_capability|restore_state))$',
  },
  // One glob for every host's MCP naming: `mcp__<server>__<tool>` (Claude Code, Codex) is also
  // `mcp_` + `_<server>_` + `_<tool>`, so Gemini CLI's `mcp_<server>_<tool>` pattern covers it.
  {
    glob: 'mcp_*_{send,post,publish,delete,remove,drop,deploy,merge,push,transfer}*',
    source: '^(?:mcp_.*?_(send|post|publish|delete|remove|drop|deploy|merge|push|transfer).*?\\/?)$',
  },
];

export const DEFAULT_GATED_TOOLS: readonly string[] = DEFAULT_GATED.map((g) => g.glob);

/** Default scan window: the newest 32 MB of a transcript. */
export const DEFAULT_MAX_TRANSCRIPT_MB = 32;

/** The bypass: an environment variable, never a tool argument (a model can set those). */
export const GATE_BYPASS_ENV = 'FIRSTLIGHT_GATE_BYPASS';
export const GATED_TOOLS_ENV = 'FIRSTLIGHT_GATED_TOOLS';

/** Any key `gate` contains this word (YAML escapes in a quoted key aside). */
const MENTIONS_GATE = /\bgate\b/;

/** Where a gating glob comes from, as a deny message names it. */
export type GateRuleOrigin = 'default' | 'gate.tools' | 'gate.add' | 'env';

/** The glob that gates a tool and where it was set. */
export interface GateRule {
  glob: string;
  from: GateRuleOrigin;
}

export interface GateConfig {
  /** The globs in force, `gate.add`'s after the list they extend. */
  tools: readonly string[];
  /** `tools` compiled (a glob that does not compile is left out: it matches nothing). */
  compiled: readonly CompiledToolGlob[];
  /** Where each glob of `tools` was set (the first place that names it). */
  origins: ReadonlyMap<string, GateRuleOrigin>;
  maxTranscriptBytes: number;
  /** How long to wait for a bootstrap_session result the host has not written yet. */
  pendingResultWaitMs: number;
  source: 'env' | 'settings' | 'default';
  /** What is wrong with the settings, for a stderr note (gateConfigNote). */
  problems: string[];
}

/**
 * Claude Code queues transcript lines and writes them on a timer, so the model can be on its
 * next call before the bootstrap_session result is on disk; the gate looks again for this long.
 */
const DEFAULT_PENDING_WAIT_MS = 2000;
export const PENDING_WAIT_ENV = 'FIRSTLIGHT_GATE_PENDING_WAIT_MS';

/**
 * picomatch's regex for a glob it cannot parse (an unclosed `{`): it matches nothing, so a list
 * of only such globs would gate nothing at all.
 */
const MATCHES_NOTHING = '$^';

/** A list that replaces the default one, and what a warning calls it. */
interface Replacement {
  globs: readonly string[];
  source: 'env' | 'settings';
  name: string;
}

/**
 * The gate's settings. A replacing list (`FIRSTLIGHT_GATED_TOOLS`, else `gate.tools`) that names
 * no tool, or none that compiles, is ignored with a warning: an empty `FIRSTLIGHT_GATED_TOOLS=`
 * once turned the gate off for every tool, Bash included (issue 35). Turning it off is
 * `FIRSTLIGHT_GATE_BYPASS=1`, said in the warning.
 */
export async function loadGateConfig(home: string, env: NodeJS.ProcessEnv): Promise<GateConfig> {
  const file = join(home, 'firstlight.yaml');
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // no settings file: defaults
  }
  let added: readonly string[] = [];
  let maxMb = DEFAULT_MAX_TRANSCRIPT_MB;
  const problems: string[] = [];
  const candidates: Replacement[] = [];
  const fromEnv = env[GATED_TOOLS_ENV];
  if (fromEnv !== undefined)
    candidates.push({ globs: splitGlobs(fromEnv), source: 'env', name: GATED_TOOLS_ENV });
  if (MENTIONS_GATE.test(text)) {
    const { loadSettings } = await import('../../core/index.js');
    const loaded = loadSettings(file);
    problems.push(...loaded.problems.filter((p) => p.includes('gate')));
    const gate = loaded.settings.gate;
    if (gate.tools)
      candidates.push({ globs: gate.tools, source: 'settings', name: 'gate.tools in firstlight.yaml' });
    added = gate.add ?? [];
    maxMb = gate.max_transcript_mb;
  }
  let tools: readonly string[] = DEFAULT_GATED_TOOLS;
  let source: GateConfig['source'] = 'default';
  let compiled: readonly CompiledToolGlob[] = DEFAULT_GATED;
  // The user's own globs load the compiler; the default list ships compiled.
  const compile = async (globs: readonly string[]) =>
    (await loadGlobCompiler()).compileToolGlobs(globs).filter((c) => c.source !== MATCHES_NOTHING);
  for (const candidate of candidates) {
    const usable = candidate.globs.length > 0 ? await compile(candidate.globs) : [];
    const quoted = candidate.globs.map((g) => JSON.stringify(g)).join(', ');
    if (usable.length === 0) {
      const why = candidate.globs.length === 0 ? 'names no tool' : `has no glob that compiles (${quoted})`;
      problems.push(`${candidate.name} ${why}, so it is ignored`);
      continue;
    }
    const broken = candidate.globs.filter((g) => !usable.some((u) => u.glob === g));
    if (broken.length > 0)
      problems.push(
        `${candidate.name}: ${broken.map((g) => JSON.stringify(g)).join(', ')} does not compile and gates nothing`,
      );
    tools = candidate.globs;
    source = candidate.source;
    compiled = usable;
    break;
  }
  if (problems.some((p) => p.endsWith('so it is ignored')))
    problems.push(
      `the gate uses ${source === 'default' ? 'the default list' : `the list from ${source === 'env' ? GATED_TOOLS_ENV : 'gate.tools in firstlight.yaml'}`}; to run without the gate, set ${GATE_BYPASS_ENV}=1`,
    );
  const origin: GateRuleOrigin = source === 'env' ? 'env' : source === 'settings' ? 'gate.tools' : 'default';
  const origins = new Map<string, GateRuleOrigin>(tools.map((t) => [t, origin]));
  const extra = added.filter((t) => !origins.has(t));
  for (const t of extra) origins.set(t, 'gate.add');
  if (extra.length > 0) {
    const more = await compile(extra);
    const broken = extra.filter((g) => !more.some((u) => u.glob === g));
    if (broken.length > 0)
      problems.push(
        `gate.add in firstlight.yaml: ${broken.map((g) => JSON.stringify(g)).join(', ')} does not compile and gates nothing`,
      );
    compiled = [...compiled, ...more];
  }
  const wait = Number(env[PENDING_WAIT_ENV]);
  const pendingResultWaitMs =
    Number.isFinite(wait) && wait >= 0 && env[PENDING_WAIT_ENV] !== '' ? wait : DEFAULT_PENDING_WAIT_MS;
  return {
    tools: [...origins.keys()],
    compiled,
    origins,
    maxTranscriptBytes: maxMb * 1024 * 1024,
    pendingResultWaitMs,
    source,
    problems,
  };
}

/** A comma-separated list of globs, blanks dropped. */
function splitGlobs(value: string): string[] {
  return value
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
}

/** What the hook says on stderr about the gate's settings (null when nothing is wrong). */
export function gateConfigNote(config: GateConfig): string | null {
  return config.problems.length > 0 ? `firstlight gate: ${config.problems.join('; ')}` : null;
}

/** A gating rule as a deny message names it: the glob and where it was set. */
export function describeRule(rule: GateRule): string {
  const where = {
    default: 'default rule',
    'gate.tools': 'rule from gate.tools in firstlight.yaml',
    'gate.add': 'rule from gate.add in firstlight.yaml',
    env: `rule from ${GATED_TOOLS_ENV}`,
  }[rule.from];
  return `${where} ${JSON.stringify(rule.glob)}`;
}

/**
 * firstlight's own tools never wait for bootstrap (bootstrap_session is one of them). When the
 * host names the tool's MCP server, that decides; otherwise only our prefix plus our tool name.
 */
export function isOwnTool(input: HookInput, tool: string): boolean {
  if (input.mcpServer !== null) return input.mcpServer === SERVER_NAME;
  return ownTool(tool) !== null;
}

/**
 * The rule that gates `tool`, or null when it runs without proof: one of our own tools, a tool
 * no glob names, or the environment's bypass. Every gate (transcript or record) asks this first.
 * Where the host names the MCP server and tool apart from the name it shows (Gemini CLI's
 * mcp_context), the globs also meet `mcp__<server>__<tool>`: the REPL's `execute` is gated under
 * whatever name a clash gave it, and a glob written in Claude Code's form holds on that host too.
 */
export function gatedBy(
  input: HookInput,
  tool: string,
  deps: { config: GateConfig; env: NodeJS.ProcessEnv },
): GateRule | null {
  if (isOwnTool(input, tool)) return null;
  const canonical = input.mcpServer && input.mcpTool ? `mcp__${input.mcpServer}__${input.mcpTool}` : null;
  const glob =
    matchCompiledToolGlob(tool, deps.config.compiled) ??
    (canonical ? matchCompiledToolGlob(canonical, deps.config.compiled) : null);
  if (!glob) return null;
  const bypass = deps.env[GATE_BYPASS_ENV];
  if (bypass === '1' || bypass === 'true') return null;
  return { glob, from: deps.config.origins.get(glob) ?? 'default' };
}
