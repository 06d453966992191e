import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, packagePath } from '../core/index.js';
import type { JournalEntry } from './journal.js';
import { createRuntime } from './runtime.js';
import type { InvokeResult } from './types.js';

/**
 * The runtime's whole workflow on the scripted substrate, as a consumer would run it:
 * explorer → planner → builder → validator → resolver → re-validation, each a fresh session
 * reading only the handoff the one before produced. Uses the bundled personas and scripted
 * sessions, and writes only under `dir`.
 */

/** One step: the persona, its role and surface, and the bundled session it plays. */
export const DEMO_STEPS = [
  { persona: 'explorer', role: 'explorer', surface: 'synthesis-ledger', session: 'explorer' },
  { persona: 'planner', role: 'planner', surface: 'code-output', session: 'planner' },
  { persona: 'builder', role: 'builder', surface: 'code-output', session: 'builder' },
  { persona: 'auditor', role: 'validator', surface: 'audit', session: 'validator' },
  { persona: 'resolver', role: 'resolver', surface: 'code-output', session: 'resolver' },
  { persona: 'auditor', role: 'validator', surface: 'audit', session: 'revalidation' },
] as const;

export interface DemoRun {
  /** The temporary project whose `.firstlight/` holds the ledger. */
  readonly project: string;
  readonly results: readonly InvokeResult[];
  /** Whether every step completed with its handoff. */
  readonly ok: boolean;
  readonly journal: readonly JournalEntry[];
}

export async function runDemo(dir: string): Promise<DemoRun> {
  const project = join(dir, 'project');
  mkdirSync(project, { recursive: true });
  const runtime = createRuntime({
    home: dir,
    project,
    cwd: project,
    log: createLogger('runtime-demo'),
  });
  const results: InvokeResult[] = [];
  let handoff: string | undefined;
  for (const step of DEMO_STEPS) {
    const result = await runtime.invoke({
      persona: packagePath('examples', 'home', 'personas', `${step.persona}.yaml`),
      role: step.role,
      surface: step.surface,
      engagement: 'agent',
      task: `${step.role}: make the item listing page fast`,
      handoffs: handoff ? [handoff] : [],
      substrate: `scripted:${packagePath('examples', 'sessions', `${step.session}.yaml`)}`,
    });
    results.push(result);
    handoff = result.meta.handoff_id;
    if (result.status !== 'completed' || !handoff) break;
  }
  return {
    project,
    results,
    ok:
      results.length === DEMO_STEPS.length &&
      results.every((r) => r.status === 'completed' && r.meta.handoff_id),
    journal: await runtime.journal(),
  };
}
