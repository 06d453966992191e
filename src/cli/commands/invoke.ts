import type { Command } from 'commander';
import type { InvokeResult } from '../../runtime/index.js';
import { collect, HOME_HELP, PROJECT_OR_HOME_HELP, withExamples } from '../help-text.js';
import type { HomeOption } from '../io.js';

interface InvokeOptions extends HomeOption {
  persona?: string;
  role?: string;
  mode?: string;
  surface?: string;
  engagement?: string;
  voice?: string;
  task?: string;
  taskFile?: string;
  handoff: string[];
  override?: string;
  tool: string[];
  server: string[];
  context?: string;
  governance: string[];
  printHandoffId?: boolean;
  substrate?: string;
  project?: string;
  continue?: string;
  json?: boolean;
}

/**
 * Exit codes of `invoke`: completed, failed, bad usage (2, the CLI edge), refused, and the two
 * outcomes that complete a session without its deliverable — so `invoke … && invoke …` stops.
 */
export const INVOKE_EXIT = {
  completed: 0,
  failed: 1,
  refused: 3,
  handoff_insufficient: 4,
  turn_yielded: 5,
} as const;

export function registerInvoke(program: Command): void {
  const invoke = program
    .command('invoke')
    .description('run a persona in a role as a fresh agent session on a substrate (the persona runtime)')
    .option('--persona <p>', 'profile name in <home>/personas/, a path, or a file: URI')
    .option(
      '--role <r>',
      "explorer | planner | builder | validator | resolver | general | observer | a custom role (default: the profile's role_default)",
    )
    .option(
      '--mode <m>',
      'exploration | planning | execution | validation | resolution (must match the role)',
    )
    .option('--surface <s>', "a surface of the profile's surface_profiles (audit, real-time-stream, …)")
    .option('--engagement <e>', 'agent (run to completion) | assistant (turn-based)')
    .option('--voice <v>', 'persona | neutral | strict', 'persona')
    .option('--task <text>', 'the task (default: stdin when it is not a terminal)')
    .option('--task-file <file>', 'read the task from a file')
    .option(
      '--handoff <id|file>',
      'an encoded handoff: an id in the ledger, or a file (a path or a file: URI) (repeatable)',
      collect,
      [],
    )
    .option('--override <file>', 'an operator override (operator_collapsed_modes) as YAML or JSON')
    .option(
      '--tool <name>',
      'request a tool by name (server__tool or an agent built-in; repeatable)',
      collect,
      [],
    )
    .option(
      '--server <name=command>',
      'a task-relevant MCP server for this invocation, e.g. everything="npx -y @modelcontextprotocol/server-everything" (repeatable; classified by the profile\'s rules for that name)',
      collect,
      [],
    )
    .option(
      '--context <file>',
      'prior conversation to carry in: a JSON or YAML list of {role: user|assistant, content} (refused for a validator)',
    )
    .option(
      '--governance <uri>',
      'a governance document the session may read, by pointer (repeatable; a validator takes these)',
      collect,
      [],
    )
    .option('--substrate <spec>', 'scripted:FILE, scripted:NAME of a bundled session, or a substrate kind')
    .option(
      '--print-handoff-id',
      'print only the id of the handoff produced (for a shell: id=$(firstlight invoke … --print-handoff-id))',
    )
    .option('--project <dir>', PROJECT_OR_HOME_HELP)
    .option('--continue <session_id>', 'continue an assistant session that yielded the turn')
    .option('--home <dir>', HOME_HELP)
    .option('--json', 'print the result as JSON ({"ok": true when completed, …})');
  withExamples(
    invoke,
    [
      'firstlight invoke --persona explorer --surface synthesis-ledger --engagement agent --task "How could item listings get fast?" --substrate scripted:explorer',
      // The first example's handoff, by the id it prints: the line runs as written (issue 38).
      'id=$(firstlight invoke --persona explorer --surface synthesis-ledger --engagement agent --task "How could item listings get fast?" --substrate scripted:explorer --print-handoff-id)',
      'echo "Plan it" | firstlight invoke --persona planner --surface code-output --engagement agent --handoff "$id" --substrate scripted:planner',
    ],
    [
      'Exit codes: 0 completed, 1 failed (meta.failure_reason), 2 bad usage, 3 refused (meta.refusal_reason),',
      '  4 handoff_insufficient, 5 turn_yielded (the session completed without its deliverable).',
      'Refusal reasons: mutating_tools_for_role, missing_handoff, incomplete_handoff, no_builder_handoff,',
      '  validator_extra_context, inherited_context, same_session_transition, tool_set_locked,',
      '  handoff_unverified, engagement_surface, invalid_override,',
      '  sandbox_unavailable (a read-only role on an agent CLI whose OS sandbox, bubblewrap, cannot start).',
      'Journal, handoffs and sessions go to <project>/.firstlight/ (the home without a project);',
      'read the journal with `firstlight journal`. More: firstlight help runtime.',
    ],
  ).action(async (options: InvokeOptions) => {
    const { UserError } = await import('../../core/index.js');
    const { existingHome, readStdin } = await import('../io.js');
    const { projectFor } = await import('./invoke-project.js');
    const { createRuntime, readSession, ledgerDir } = await import('../../runtime/index.js');
    const home = existingHome(options);
    const project = await projectFor(options.project, home);
    let { persona, role, surface, engagement } = options;
    if (options.continue) {
      const prior = readSession(ledgerDir({ home, ...(project ? { project } : {}) }), options.continue);
      persona ??= prior?.profile;
      role ??= prior?.role;
      surface ??= prior?.surface;
      engagement ??= prior?.engagement;
    }
    const missing = [
      ['--persona', persona],
      ['--surface', surface],
      ['--engagement', engagement],
    ].filter(([, value]) => !value);
    if (missing.length > 0) {
      throw new UserError(`missing ${missing.map(([flag]) => flag).join(', ')}`, {
        code: 'INVALID_ARGUMENT',
        hint: 'pass --persona P --surface S --engagement agent|assistant [--role R] (see firstlight invoke --help)',
      });
    }
    if (options.task !== undefined && options.taskFile !== undefined) {
      throw new UserError('pass --task or --task-file, not both', {
        code: 'INVALID_ARGUMENT',
        hint: 'keep one of them',
      });
    }
    let task = options.task;
    if (options.taskFile !== undefined) {
      const { readFileSync } = await import('node:fs');
      try {
        task = readFileSync(options.taskFile, 'utf8');
      } catch {
        throw new UserError(`cannot read --task-file ${options.taskFile}`, {
          code: 'INVALID_ARGUMENT',
          hint: 'give a readable file with the task text',
        });
      }
    }
    if (task === undefined && !process.stdin.isTTY) {
      const piped = await readStdin();
      if (piped.trim() !== '') task = piped;
    }
    if (task === undefined) {
      throw new UserError('missing the task', {
        code: 'INVALID_ARGUMENT',
        hint: 'pass --task TEXT or --task-file FILE, or pipe it in: echo "TASK" | firstlight invoke …',
      });
    }
    const { MODES } = await import('../../runtime/index.js');
    if (options.mode !== undefined && !(MODES as readonly string[]).includes(options.mode)) {
      throw new UserError(`--mode "${options.mode}" is not a mode`, {
        code: 'INVALID_ARGUMENT',
        hint: `pass --mode one of: ${MODES.join(', ')}`,
      });
    }
    const { readContextFile, parseTaskServers } = await import('../../runtime/index.js');
    const context = options.context === undefined ? undefined : readContextFile(options.context);
    const runtime = createRuntime({ home, ...(project ? { project } : {}) });
    const result = await runtime.invoke({
      persona: persona!,
      ...(role ? { role } : {}),
      ...(options.mode ? { mode: options.mode as (typeof MODES)[number] } : {}),
      surface: surface!,
      engagement: engagement as 'agent' | 'assistant',
      voice: options.voice as 'persona' | 'neutral' | 'strict',
      task,
      handoffs: options.handoff,
      ...(options.override ? { override: options.override } : {}),
      ...(options.tool.length > 0 ? { tools: options.tool } : {}),
      ...(options.server.length > 0 ? { servers: parseTaskServers(options.server) } : {}),
      ...(context ? { context } : {}),
      ...(options.governance.length > 0 ? { governance: options.governance } : {}),
      ...(options.substrate ? { substrate: options.substrate } : {}),
      ...(options.continue ? { continue: options.continue } : {}),
    });
    if (options.printHandoffId) {
      if (result.meta.handoff_id) process.stdout.write(`${result.meta.handoff_id}\n`);
      else process.stderr.write(`${summary(result).join('\n')}\n`);
    } else if (options.json) {
      process.stdout.write(`${JSON.stringify(invokeAnswer(result), null, 2)}\n`);
    } else {
      process.stdout.write(`${summary(result).join('\n')}\n`);
    }
    process.exitCode =
      INVOKE_EXIT[result.status === 'completed' && result.outcome ? result.outcome.type : result.status];
  });
}

/** The result for people: status, why, the outcome, the handoff, flags, denials, the text. */
function summary(result: InvokeResult): string[] {
  const m = result.meta;
  const lines = [
    `${result.status}: ${m.persona} as ${m.role}${m.mode ? ` (${m.mode})` : ''} on ${m.surface}, session ${m.session_id}`,
  ];
  if (m.refusal_reason) lines.push(`refused: ${m.refusal_reason}: ${m.detail ?? ''}`);
  if (m.failure_reason) lines.push(`failed: ${m.failure_reason}: ${m.detail ?? ''}`);
  if (result.outcome?.type === 'handoff_insufficient') {
    lines.push(
      `handoff insufficient (${result.outcome.proposed_resolution}): ${result.outcome.missing.join('; ')}`,
    );
  }
  if (result.outcome?.type === 'turn_yielded') {
    lines.push(
      `question: ${result.outcome.question}`,
      `answer with: firstlight invoke --continue ${m.session_id} --task "…"`,
    );
  }
  if (m.handoff_id) lines.push(`handoff: ${m.handoff_id}`);
  if (m.override_lineage?.length) lines.push(`override lineage: ${m.override_lineage.join(', ')}`);
  if (m.flags.length > 0) lines.push(`flags: ${m.flags.join(', ')}`);
  if (m.denials.length > 0) lines.push(`denied: ${m.denials.map((d) => d.tool).join(', ')}`);
  if (result.output?.text) lines.push('', result.output.text);
  return lines;
}

/**
 * The `--json` answer: the result with `ok` (true only when it completed with its deliverable) and,
 * otherwise, the reason as `error` in the CLI's one error shape.
 */
function invokeAnswer(result: InvokeResult): Record<string, unknown> {
  const outcome = result.status === 'completed' ? result.outcome?.type : undefined;
  if (result.status === 'completed' && !outcome) return { ok: true, ...result };
  const m = result.meta;
  const code = m.refusal_reason ?? m.failure_reason ?? outcome ?? result.status;
  return {
    ok: false,
    error: { code: String(code).toUpperCase(), message: m.detail ?? `${result.status}: ${code}` },
    ...result,
  };
}
