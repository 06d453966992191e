/**
 * A lived-in place for the `firstlight ui` tests: the example home (`firstlight init --example`)
 * and a project in which a scripted runtime workflow ran (explorer → planner → builder →
 * validator → resolver, the validator denied a Bash call, and a builder without a handoff was
 * refused), an agent bootstrapped, observed (one surprise), recalled and left last words, and
 * Claude Code's hooks injected the packet, cautioned a force-push and gated an unbootstrapped
 * session. Everything goes through the built CLI and a real MCP client, in child processes
 * started asynchronously (a vitest worker must not block on them).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { InvokeResult } from '../../src/runtime/index.js';
import { CLI, tempDir, wireStdio } from '../helpers/index.js';

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The built CLI, run to completion without blocking the worker. */
export function cliAsync(
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`firstlight ${args.join(' ')} did not finish: ${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

export interface RunningUiProcess {
  url: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts `firstlight ui --no-open --port 0 …` and waits for the URL it prints. */
export async function startUi(args: string[], env: NodeJS.ProcessEnv = {}): Promise<RunningUiProcess> {
  const child = spawn(process.execPath, [CLI, 'ui', '--no-open', '--port', '0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.on('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`firstlight ui did not start: ${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /firstlight ui: (http\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`firstlight ui exited ${code}: ${output}`));
    });
  });
  return {
    url,
    output: () => output,
    stop: async () => {
      if (!exited) child.kill('SIGTERM');
      await gone;
    },
  };
}

export interface UiPlace {
  home: string;
  project: string;
  /** The workflow's handoffs in order: synthesis, plan, artifact, findings, revision. */
  handoffs: { id: string; kind: string; field: string }[];
  /** The sessions the hooks saw: one bootstrapped and cautioned, one gated. */
  sessions: { bootstrapped: string; gated: string };
  dispose: () => void;
}

const STEPS = [
  {
    role: 'explorer',
    persona: 'explorer',
    surface: 'synthesis-ledger',
    field: 'possibilities',
    output: {
      handoff: {
        possibilities: ['edge cache', 'in-process LRU'],
        tensions: ['freshness vs speed'],
        unknowns: ['read/write ratio'],
        frames: ['latency budget'],
      },
    },
  },
  {
    role: 'planner',
    persona: 'planner',
    surface: 'code-output',
    field: 'would_invalidate',
    output: {
      handoff: {
        assumptions: ['reads are over 90% of traffic'],
        scope: { in: ['GET /items cached 60 s'], out: ['write-through invalidation'] },
        deferred: ['eviction tuning'],
        would_invalidate: ['writes above 10% of traffic'],
      },
    },
  },
  {
    role: 'builder',
    persona: 'builder',
    surface: 'code-output',
    field: 'claims',
    output: {
      handoff: {
        artifact: 'src/cache.ts',
        claims: {
          does: ['caches GET /items for 60 s'],
          does_not: ['invalidate on write'],
          scope: 'the plan',
        },
      },
    },
  },
  {
    role: 'validator',
    persona: 'auditor',
    surface: 'audit',
    field: 'findings',
    output: {
      handoff: {
        findings: [
          {
            id: 'f1',
            summary: 'the TTL is read from an unset variable',
            disposition: 'fix',
            evidence: 'src/cache.ts:12',
          },
        ],
      },
    },
    toolCalls: [{ name: 'Bash', input: { command: 'sed -i s/ttl/TTL/ src/cache.ts' } }],
  },
  {
    role: 'resolver',
    persona: 'resolver',
    surface: 'code-output',
    field: 'remediation',
    output: {
      handoff: {
        artifact: 'src/cache.ts@2',
        remediation: [{ finding: 'f1', changed: 'TTL read from config, 60 s default' }],
      },
    },
  },
] as const;

export async function uiPlace(): Promise<UiPlace> {
  const homeDir = tempDir('firstlight-ui-home-');
  const projectDir = tempDir('firstlight-ui-project-');
  const home = join(homeDir.dir, 'home');
  const project = projectDir.dir;
  // The project's identity pinned (docs/memory.md): the page and every process agree on it.
  mkdirSync(join(project, '.firstlight'), { recursive: true });
  writeFileSync(join(project, '.firstlight', 'project.json'), '{"id": "fl-0123456789ab"}\n');
  const init = await cliAsync(['init', '--example', '--home', home, '--json']);
  if (init.code !== 0) throw new Error(`init --example failed: ${init.stderr}`);
  const env = { FIRSTLIGHT_HOME: home };
  const invoke = async (step: (typeof STEPS)[number] | undefined, n: number, handoff?: string) => {
    const script = join(project, `script-${n}.yaml`);
    const toolCalls = step && 'toolCalls' in step ? step.toolCalls : [];
    writeFileSync(
      script,
      stringify({
        steps: [
          ...(toolCalls.length > 0 ? [{ text: 'checking first', tool_calls: toolCalls }] : []),
          { delay_ms: 5, text: `${step?.role ?? 'builder'} done`, output: step?.output ?? {} },
        ],
      }),
    );
    const role = step?.role ?? 'builder';
    const ran = await cliAsync(
      [
        'invoke',
        '--home',
        home,
        '--project',
        project,
        '--json',
        '--persona',
        step?.persona ?? 'builder',
        '--role',
        role,
        '--surface',
        step?.surface ?? 'code-output',
        '--engagement',
        'agent',
        '--task',
        `${role}: make item listing fast`,
        ...(handoff ? ['--handoff', handoff] : []),
        '--substrate',
        `scripted:${script}`,
      ],
      { cwd: project },
    );
    return JSON.parse(ran.stdout) as InvokeResult;
  };
  const handoffs: UiPlace['handoffs'] = [];
  let previous: string | undefined;
  for (const [i, step] of STEPS.entries()) {
    const result = await invoke(step, i + 1, previous);
    if (result.status !== 'completed' || !result.meta.handoff_id)
      throw new Error(`${step.role} did not complete: ${JSON.stringify(result.meta)}`);
    previous = result.meta.handoff_id;
    handoffs.push({ id: previous, kind: previous.replace(/-.*$/, ''), field: step.field });
  }
  const refused = await invoke(undefined, STEPS.length + 1);
  if (refused.status !== 'refused')
    throw new Error(`a builder without a plan was not refused: ${refused.status}`);

  // The agent: bootstraps with its host session id, observes (one result contradicts what it
  // expected), recalls, and leaves its last words.
  const bootstrapped = 'ui-claude-session-1';
  const gated = 'ui-claude-session-2';
  const mind = await wireStdio(['serve', '--home', home], { cwd: project });
  try {
    await mind.client.callTool({ name: 'bootstrap_session', arguments: { session_id: bootstrapped } });
    await mind.client.callTool({
      name: 'observe',
      arguments: {
        tool_name: 'Bash',
        args: { command: 'npm test' },
        expected: 'all 120 tests pass',
        result: '120 tests passed',
      },
    });
    await mind.client.callTool({
      name: 'observe',
      arguments: {
        tool_name: 'Bash',
        args: { command: 'git push origin main' },
        expected: 'the push is accepted',
        result: 'error: failed to push some refs; rejected (non-fast-forward)',
      },
    });
    await mind.client.callTool({ name: 'recall', arguments: { query: 'force push release branch' } });
  } finally {
    await mind.close();
  }
  const internalized = await cliAsync([
    'internalize',
    '--home',
    home,
    '--session-id',
    bootstrapped,
    '--tail',
    'The cache TTL fix is in; next I re-run the checkout e2e before asking Sam to deploy.',
    '--anchor',
    'never force-push release/*',
  ]);
  if (internalized.code !== 0) throw new Error(`internalize failed: ${internalized.stderr}`);

  // Claude Code's hooks, with the payloads it sends.
  const hook = async (event: string, payload: Record<string, unknown>) => {
    const ran = await cliAsync(['hook', event, '--host', 'claude'], {
      input: JSON.stringify({ cwd: project, ...payload }),
      env,
      cwd: project,
    });
    if (ran.code !== 0 && ran.code !== 2)
      throw new Error(`hook ${event} failed (${ran.code}): ${ran.stderr}`);
    return ran;
  };
  await hook('session-start', {
    session_id: bootstrapped,
    hook_event_name: 'SessionStart',
    source: 'startup',
  });
  const push = { command: 'git push --force origin release/4.2' };
  await hook('pre-tool-use', {
    session_id: bootstrapped,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: push,
    tool_use_id: 'toolu_1',
  });
  await hook('post-tool-use', {
    session_id: bootstrapped,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: push,
    tool_response: { stdout: '', stderr: 'rejected: protected branch' },
    tool_use_id: 'toolu_1',
  });
  await hook('pre-tool-use', {
    session_id: gated,
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'rm -rf build' },
    tool_use_id: 'toolu_2',
    transcript_path: join(project, 'no-transcript.jsonl'),
  });
  // Claude Code installed, then its hooks file lost: doctor fails the hooks check.
  const installed = await cliAsync(['install', 'claude', '--project', project, '--home', home, '--json'], {
    cwd: project,
  });
  if (installed.code !== 0) throw new Error(`install claude failed: ${installed.stderr}`);
  rmSync(join(project, '.claude', 'settings.json'));
  return {
    home,
    project,
    handoffs,
    sessions: { bootstrapped, gated },
    dispose: () => {
      homeDir.dispose();
      projectDir.dispose();
    },
  };
}
