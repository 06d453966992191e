/**
 * @module The seed's multi-role workflow (explorer → planner → builder → validator → resolver
 * → re-validation) as data, run through the real runtime on any substrate: each session fresh,
 * each reading the handoff of the one before. The model's answers are the same on every
 * substrate (a scripted file, or the scripted model server behind a real substrate), so the
 * journals they leave can be compared entry by entry.
 */
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initHome } from '../../src/core/index.js';
import { createRuntime, type InvokeResult, type Runtime } from '../../src/runtime/index.js';
import { REPO_ROOT } from '../helpers/index.js';

export interface WorkflowStep {
  persona: string;
  role: string;
  surface: string;
  task: string;
  /** Index of the earlier step whose handoff this session reads. */
  reads?: number;
  /** The session's answer: prose, then this object as a fenced JSON block. */
  answer: { prose: string; json: Record<string, unknown> };
}

export const SEED_WORKFLOW: WorkflowStep[] = [
  {
    persona: 'explorer',
    role: 'explorer',
    surface: 'synthesis-ledger',
    task: 'Explore how the CLI should report its progress.',
    answer: {
      prose: 'Three ways to report progress; none chosen yet.',
      json: {
        handoff: {
          possibilities: ['a spinner', 'one line per stage', 'JSON events'],
          tensions: ['terse output against a readable log'],
          unknowns: ['whether CI captures stderr'],
          frames: ['the operator watching', 'the log read later'],
        },
      },
    },
  },
  {
    persona: 'planner',
    role: 'planner',
    surface: 'audit',
    task: 'Plan the progress reporting.',
    reads: 0,
    answer: {
      prose: 'Plan: one line per stage on stderr.',
      json: {
        handoff: {
          assumptions: ['CI keeps stderr'],
          scope: { in: ['stage lines on stderr'], out: ['a spinner'] },
          deferred: ['JSON events'],
          would_invalidate: ['CI dropping stderr'],
        },
      },
    },
  },
  {
    persona: 'builder',
    role: 'builder',
    surface: 'code-output',
    task: 'Build the stage lines.',
    reads: 1,
    answer: {
      prose: 'Built src/progress.ts.',
      json: {
        handoff: {
          artifact: 'src/progress.ts',
          claims: {
            does: ['prints one line per stage'],
            does_not: ['animate'],
            scope: 'stderr only',
          },
        },
      },
    },
  },
  {
    persona: 'auditor',
    role: 'validator',
    surface: 'audit',
    task: 'Validate the artifact against its claims.',
    reads: 2,
    answer: {
      prose: 'One finding.',
      json: {
        handoff: {
          findings: [
            {
              id: 'f1',
              title: 'stage names are not escaped',
              disposition: 'fix',
              evidence: 'a stage named "a\\nb" prints two lines',
            },
          ],
        },
      },
    },
  },
  {
    persona: 'resolver',
    role: 'resolver',
    surface: 'audit',
    task: 'Resolve the findings.',
    reads: 3,
    answer: {
      prose: 'Escaped stage names.',
      json: {
        handoff: {
          artifact: 'src/progress.ts',
          remediation: [{ finding: 'f1', changed: 'stage names are escaped before printing' }],
        },
      },
    },
  },
  {
    persona: 'auditor',
    role: 'validator',
    surface: 'audit',
    task: 'Re-validate the revised artifact.',
    reads: 4,
    answer: {
      prose: 'The fix holds.',
      json: {
        handoff: {
          findings: [
            { id: 'f1', title: 'escaped', disposition: 'accept', evidence: '"a\\nb" now prints one line' },
          ],
        },
      },
    },
  },
];

/** The text a model answers one step with. */
export function answerText(step: WorkflowStep): string {
  return `${step.answer.prose}\n\n\`\`\`json\n${JSON.stringify(step.answer.json, null, 2)}\n\`\`\``;
}

/** A fresh firstlight home (the example personas) and an empty project. */
export function workflowPlace(
  label: string,
  settingsYaml = '',
): { root: string; home: string; project: string } {
  const root = mkdtempSync(join(tmpdir(), `firstlight-workflow-${label}-`));
  const home = join(root, 'home');
  const project = join(root, 'project');
  initHome(home);
  mkdirSync(project, { recursive: true });
  if (settingsYaml) appendFileSync(join(home, 'firstlight.yaml'), `\n${settingsYaml}\n`);
  return { root, home, project };
}

/**
 * Runs the workflow (its first `steps` sessions); `substrateFor(i)` names each session's
 * substrate (a spec). Stops at the first session that does not complete and returns what ran.
 */
export async function runWorkflow(
  runtime: Runtime,
  substrateFor: (index: number, step: WorkflowStep) => string,
  steps = SEED_WORKFLOW.length,
): Promise<InvokeResult[]> {
  const results: InvokeResult[] = [];
  for (const [i, step] of SEED_WORKFLOW.slice(0, steps).entries()) {
    const read = step.reads === undefined ? undefined : results[step.reads]?.meta.handoff_id;
    const result = await runtime.invoke({
      persona: step.persona,
      role: step.role,
      surface: step.surface,
      engagement: 'agent',
      task: step.task,
      ...(read ? { handoffs: [read] } : {}),
      substrate: substrateFor(i, step),
    });
    results.push(result);
    if (result.status !== 'completed') break;
  }
  return results;
}

/** Writes one scripted-substrate file per step (each answers with the step's text). */
export function scriptFiles(dir: string): string[] {
  return SEED_WORKFLOW.map((step, i) => {
    const file = join(dir, `session-${i}.json`);
    writeFileSync(file, JSON.stringify({ steps: [{ text: answerText(step) }] }));
    return file;
  });
}

/**
 * A journal's shape: each entry's kind and title with session ids, handoff ids and the
 * substrate's name masked, so runs on different substrates compare equal.
 */
export async function journalShape(runtime: Runtime): Promise<string[]> {
  return (await runtime.journal()).map((entry) =>
    `${entry.kind ?? entry.typeName}: ${entry.title}`
      .replace(/\b(inv|ses|sess|hof|handoff)[-_][A-Za-z0-9_-]+/g, '$1-ID')
      .replace(/\b[0-9a-f]{8,}\b/g, 'ID'),
  );
}

/** @modelcontextprotocol/server-memory's entry, run with this Node. */
export const MEMORY_SERVER = join(
  REPO_ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-memory',
  'dist',
  'index.js',
);

/**
 * Writes the `memory-auditor` persona into the place's home: a validator whose task-relevant
 * server is server-memory with its three read tools classified read-only (its writers are
 * mutating, so the validator must never be offered them), optionally on a named substrate.
 */
export function writeMemoryAuditor(place: { home: string }, substrate?: string): void {
  writeFileSync(
    join(place.home, 'personas', 'memory-auditor.yaml'),
    [
      'persona: memory-auditor',
      'system_prompt_uri: prompts/auditor.md',
      'role: validator',
      'roles: [validator]',
      ...(substrate ? [`substrate: ${substrate}`] : []),
      'servers:',
      '  memory:',
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: [${JSON.stringify(MEMORY_SERVER)}]`,
      '    classify: { read_graph: read_only, search_nodes: read_only, open_nodes: read_only }',
      'mcp_servers:',
      '  task_relevant: [memory]',
      'surface_profiles:',
      '  audit: { density: medium, structured_output: required }',
      '',
    ].join('\n'),
  );
}

/**
 * Explorer, planner and builder on the scripted substrate, so a validator has the builder's
 * artifact handoff to read; returns that handoff's id.
 */
export async function scriptedUpToValidator(place: { root: string; home: string; project: string }) {
  const files = scriptFiles(place.root);
  const runtime = createRuntime({ home: place.home, project: place.project, env: {} });
  const results = await runWorkflow(runtime, (i) => `scripted:${files[i]}`, 3);
  const builder = results[2];
  if (builder?.status !== 'completed' || !builder.meta.handoff_id) {
    const last = results.at(-1);
    throw new Error(`the scripted run stopped: ${last?.status} ${last?.meta.detail ?? ''}`);
  }
  return builder.meta.handoff_id;
}

export { createRuntime };
