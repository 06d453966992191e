/**
 * Read-only roles on the agent CLIs run inside the OS sandbox (bubblewrap): the real Claude
 * Code, Codex and Gemini CLI, pointed at the scripted model, run a validator whose model tries
 * to write the project. Nothing is written, each attempt is a `denial` row (`C`) in the journal,
 * and the session's scratch directory takes the writes it may make. A profile that opts out runs
 * unconfined, on record. (Where the sandbox cannot start, the refusal is in
 * test/e2e/runtime-sandbox.test.ts: it needs no host.)
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bwrapSandbox, type InvokeResult, type Runtime } from '../../src/runtime/index.js';
import { ensureHost, type PinnedHostId } from './cache.js';
import {
  type RecordedRequest,
  requestText,
  type ScriptStep,
  startModelServer,
  toolResults,
} from './model-server.js';
import { RECIPES } from './recipes.js';
import {
  answerText,
  createRuntime,
  SEED_WORKFLOW,
  scriptedUpToValidator,
  workflowPlace,
} from './workflow.js';

const hosts: Partial<Record<PinnedHostId, string>> = {};
const skipReasons: Partial<Record<PinnedHostId, string>> = {};
let sandboxProblem: string | null = null;

beforeAll(async () => {
  for (const id of ['claude', 'codex', 'gemini'] as const) {
    const host = await ensureHost(id);
    if (host.ok) hosts[id] = host.bin;
    else skipReasons[id] = host.reason;
  }
  sandboxProblem = await bwrapSandbox('bwrap').unavailable();
  if (sandboxProblem) console.warn(`sandbox host tests skipped: ${sandboxProblem}`);
});

/** Why a test on `id` cannot run here, or null. */
function cannotRun(id: PinnedHostId, needsSandbox = true): string | null {
  if (!hosts[id]) return skipReasons[id] ?? `${id} is not installed`;
  return needsSandbox ? sandboxProblem : null;
}

const SUBSTRATE = { claude: 'claude-cli', codex: 'codex-cli', gemini: 'gemini-cli' } as const;
const VALIDATOR = SEED_WORKFLOW[3]!;

/**
 * A firstlight home and project with the builder's artifact handoff made on the scripted
 * substrate, the host configured for the model server (its HOME apart from the project), and
 * a runtime whose agent CLI is the pinned host. `profile` adds a persona.
 */
async function placeFor(id: PinnedHostId, modelUrl: string, extraSettings = '') {
  const kind = SUBSTRATE[id as keyof typeof SUBSTRATE];
  const settings = `substrates:\n  ${kind.replace('-', '_')}:\n    command: ${JSON.stringify(hosts[id])}\n${extraSettings}`;
  const place = workflowPlace(`sandbox-${id}`, settings);
  const artifact = await scriptedUpToValidator(place);
  const cliHome = join(place.root, 'cli-home');
  mkdirSync(cliHome, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: cliHome,
    TMPDIR: place.root,
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    GEMINI_TELEMETRY_ENABLED: 'false',
    NO_COLOR: '1',
    ...RECIPES[id as keyof typeof RECIPES].configure({ home: cliHome, project: place.project }, modelUrl),
  };
  const runtime = createRuntime({ home: place.home, project: place.project, cwd: place.project, env });
  return { ...place, artifact, runtime, kind };
}

/**
 * A validator persona that lets its model run commands (its tests, say) and even calls Write
 * read-only: the OS sandbox, not the classification, is what keeps the project unwritten.
 */
function writeShellAuditor(home: string, sandbox = '') {
  writeFileSync(
    join(home, 'personas', 'shell-auditor.yaml'),
    [
      'persona: shell-auditor',
      'system_prompt_uri: prompts/auditor.md',
      'role: validator',
      'roles: [validator]',
      'classify: { Bash: read_only, Write: read_only }',
      'surface_profiles:',
      '  audit: { density: medium, structured_output: required }',
      sandbox,
      '',
    ].join('\n'),
  );
}

/** The scratch directory the sandbox note in the session's instructions names. */
function scratchOf(request: RecordedRequest): string {
  const match = /Write drafts and temporary files only under (\S+?)\.(?:"|\\|\s|$)/.exec(
    requestText(request),
  );
  if (!match) throw new Error('the model was not told its scratch directory');
  return match[1]!;
}

async function validate(
  place: { runtime: Runtime; artifact: string; kind: string },
  persona: string,
  tools?: string[],
) {
  return place.runtime.invoke({
    persona,
    role: 'validator',
    surface: 'audit',
    engagement: 'agent',
    task: VALIDATOR.task,
    handoffs: [place.artifact],
    substrate: place.kind,
    ...(tools ? { tools } : {}),
  });
}

/**
 * A script step calling one tool; its input is built when the request comes (by then the
 * project's path is known, and the request holds the session's instructions).
 */
const call =
  (id: string, name: string, input: (request: RecordedRequest) => Record<string, unknown>): ScriptStep =>
  (request) => ({ toolCalls: [{ id, name, input: input(request) }] });

/** The session's denials are the OS sandbox's refusals of `tools`, in `meta` and the journal. */
async function expectSandboxDenials(
  place: { runtime: Runtime; kind: string },
  result: InvokeResult,
  tools: string[],
) {
  expect(result.meta.denials).toEqual(tools.map((tool) => ({ tool, reason: 'sandbox_write_denied' })));
  const denials = await rows(place.runtime, result, 'denial');
  expect(denials.map((e) => [e.type, e.title])).toEqual(
    tools.map((tool) => ['C', `denial: ${tool} refused to validator by ${place.kind}'s OS sandbox`]),
  );
  for (const denial of denials) expect(denial.content).toContain('reason=sandbox_write_denied');
  return denials;
}

/** The session's journal rows of one kind. */
async function rows(runtime: Runtime, result: InvokeResult, kind: string) {
  return (await runtime.journal()).filter((e) => e.session === result.meta.session_id && e.kind === kind);
}

describe('a validator on claude-cli in the OS sandbox', () => {
  it('writes nothing with Bash or Write, each attempt a journaled denial; the scratch directory takes a draft', {
    timeout: 180_000,
  }, async ({ skip }) => {
    const why = cannotRun('claude');
    if (why) return skip(why);
    let project = '';
    await using model = await startModelServer({
      script: [
        call('toolu_touch', 'Bash', () => ({ command: `touch ${project}/x`, description: 'x' })),
        call('toolu_write', 'Write', () => ({ file_path: `${project}/notes.md`, content: 'n' })),
        call('toolu_draft', 'Bash', (request) => ({
          command: `echo draft > ${scratchOf(request)}/draft.md`,
          description: 'draft',
        })),
        { text: answerText(VALIDATOR) },
      ],
    });
    const place = await placeFor('claude', model.url);
    project = place.project;
    writeShellAuditor(place.home);
    const result = await validate(place, 'shell-auditor', ['Bash', 'Write']);

    expect(result.status, result.meta.detail).toBe('completed');
    expect(existsSync(join(place.project, 'x'))).toBe(false);
    expect(existsSync(join(place.project, 'notes.md'))).toBe(false);
    const scratch = join(place.project, '.firstlight', 'scratch', result.meta.session_id);
    expect(result.meta.sandbox).toEqual({ kind: 'bwrap', scratch });
    expect(readFileSync(join(scratch, 'draft.md'), 'utf8')).toBe('draft\n');
    // What Claude Code sent the model back: the kernel's refusals.
    const sent = toolResults(model.turns[3]!);
    expect(sent.find((r) => r.callId === 'toolu_touch')?.text).toContain('Read-only file system');
    expect(sent.find((r) => r.callId === 'toolu_write')?.text).toContain('EROFS: read-only file system');
    const denials = await expectSandboxDenials(place, result, ['Bash', 'Write']);
    expect(denials[0]!.content).toContain(`touch ${place.project}/x`);
    expect(denials[1]!.content).toContain(`${place.project}/notes.md`);
    expect((await rows(place.runtime, result, 'session_start'))[0]!.content).toContain('sandbox=bwrap');
    rmSync(place.root, { recursive: true, force: true });
  });

  it('with the profile opted out, runs unconfined, the reason on record', { timeout: 180_000 }, async ({
    skip,
  }) => {
    // Opting out does not need bubblewrap: here it is pointed at a missing executable.
    const why = cannotRun('claude', false);
    if (why) return skip(why);
    let project = '';
    await using model = await startModelServer({
      script: [
        call('toolu_touch', 'Bash', () => ({ command: `touch ${project}/x`, description: 'x' })),
        { text: answerText(VALIDATOR) },
      ],
    });
    const place = await placeFor('claude', model.url, '  sandbox:\n    command: /nonexistent/bwrap\n');
    project = place.project;
    const reason = 'this runner is a throwaway VM';
    writeShellAuditor(place.home, `sandbox: { mode: "off", reason: "${reason}" }`);
    const result = await validate(place, 'shell-auditor', ['Bash']);
    expect(result.status, result.meta.detail).toBe('completed');
    expect(result.meta.sandbox).toEqual({ kind: 'off', reason });
    expect((await rows(place.runtime, result, 'session_start'))[0]!.content).toContain(
      `sandbox=off: ${reason}`,
    );
    // Unconfined, the write happened: opting out is real, and on record.
    expect(existsSync(join(place.project, 'x'))).toBe(true);
    expect(result.meta.denials).toEqual([]);
    rmSync(place.root, { recursive: true, force: true });
  });
});

describe('a validator on codex-cli in the OS sandbox', () => {
  it("writes nothing with Codex's shell, the attempt a journaled denial", { timeout: 180_000 }, async ({
    skip,
  }) => {
    const why = cannotRun('codex');
    if (why) return skip(why);
    let project = '';
    await using model = await startModelServer({
      script: [
        call('sh', 'exec_command', () => ({ cmd: `touch ${project}/x && echo wrote` })),
        { text: answerText(VALIDATOR) },
      ],
    });
    const place = await placeFor('codex', model.url);
    project = place.project;
    // The example auditor: no tool at all, yet Codex keeps its shell.
    const result = await validate(place, 'auditor');
    expect(result.status, result.meta.detail).toBe('completed');
    expect(existsSync(join(place.project, 'x'))).toBe(false);
    expect(toolResults(model.turns[1]!).find((r) => r.callId === 'sh')?.text).toContain(
      'Read-only file system',
    );
    expect(result.meta.sandbox?.kind).toBe('bwrap');
    const denials = await expectSandboxDenials(place, result, ['shell']);
    expect(denials[0]!.content).toContain(`touch ${place.project}/x`);
    rmSync(place.root, { recursive: true, force: true });
  });
});

describe('a validator on gemini-cli in the OS sandbox', () => {
  it('writes nothing with run_shell_command or write_file, each attempt a journaled denial', {
    timeout: 180_000,
  }, async ({ skip }) => {
    const why = cannotRun('gemini');
    if (why) return skip(why);
    let project = '';
    await using model = await startModelServer({
      script: [
        call('sh', 'run_shell_command', () => ({ command: `touch ${project}/x`, description: 'x' })),
        call('w', 'write_file', () => ({ file_path: `${project}/notes.md`, content: 'n' })),
        { text: answerText(VALIDATOR) },
      ],
    });
    const place = await placeFor('gemini', model.url);
    project = place.project;
    writeShellAuditor(place.home);
    const result = await validate(place, 'shell-auditor', ['Bash', 'Write']);
    expect(result.status, result.meta.detail).toBe('completed');
    expect(existsSync(join(place.project, 'x'))).toBe(false);
    expect(existsSync(join(place.project, 'notes.md'))).toBe(false);
    await expectSandboxDenials(place, result, ['Bash', 'Write']);
    rmSync(place.root, { recursive: true, force: true });
  });
});
