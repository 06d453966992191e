/**
 * A temp home (the example's, with its persona profiles) and a temp project for runtime e2e
 * tests, plus helpers that write scripts and handoffs and run `firstlight invoke` / `journal`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { InvokeResult, JournalEntry, RecordedRequest } from '../../src/runtime/index.js';
import { exampleHomeCopy, runCli, tempDir } from '../helpers/index.js';

export const ALL_ROLES_PROFILE = {
  persona: 'team',
  version: 1,
  system_prompt_uri: 'team-prompt.md',
  roles: ['explorer', 'planner', 'builder', 'validator', 'resolver', 'general', 'observer'],
  classify: { scratch_write: 'scratch' },
  surface_profiles: {
    audit: { density: 'medium' },
    'code-output': { density: 'medium' },
    real_time_stream: { density: 'high', max_tokens_per_emission: 60 },
    'sidebar-chat': { density: 'medium' },
  },
};

export const HANDOFFS = {
  synthesis: {
    kind: 'synthesis',
    content: {
      possibilities: ['edge cache'],
      tensions: ['fresh vs fast'],
      unknowns: ['traffic'],
      frames: ['cost'],
    },
  },
  plan: {
    kind: 'plan',
    content: {
      assumptions: ['reads dominate'],
      scope: { in: ['GET /items'], out: ['writes'] },
      deferred: ['eviction tuning'],
      would_invalidate: ['writes over 30%'],
    },
  },
  artifact: {
    kind: 'artifact',
    content: {
      artifact: 'src/cache.ts',
      claims: { does: ['caches GET /items'], does_not: ['invalidate on write'], scope: 'the plan' },
    },
  },
  findings: {
    kind: 'findings',
    content: {
      findings: [
        { id: 'f1', summary: 'no TTL', disposition: 'fix', evidence: 'src/cache.ts:12 sets no expiry' },
      ],
    },
  },
};

export const DELIVERABLES: Record<string, unknown> = {
  explorer: { handoff: HANDOFFS.synthesis.content },
  planner: { handoff: HANDOFFS.plan.content },
  builder: { handoff: HANDOFFS.artifact.content },
  validator: { handoff: HANDOFFS.findings.content },
  resolver: {
    handoff: { artifact: 'src/cache.ts@2', remediation: [{ finding: 'f1', changed: 'TTL of 60 s' }] },
  },
};

export interface Invoked {
  code: number | null;
  result: InvokeResult;
  stderr: string;
}

export function runtimeFixture() {
  const home = exampleHomeCopy();
  const project = tempDir('firstlight-project-');
  writeFileSync(join(home.dir, 'personas', 'team.yaml'), stringify(ALL_ROLES_PROFILE));
  writeFileSync(
    join(home.dir, 'personas', 'team-prompt.md'),
    'You are the team persona, in whatever role you are given.\n',
  );
  let n = 0;
  const file = (name: string, value: unknown): string => {
    const path = join(project.dir, name);
    writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2));
    return path;
  };
  return {
    home: home.dir,
    project: project.dir,
    file,
    /** A script file; `record` is set so what the substrate received can be read back. */
    script(value: Record<string, unknown>): { path: string; received: () => RecordedRequest[] } {
      n++;
      const record = `received-${n}.jsonl`;
      const path = file(`script-${n}.yaml`, stringify({ record, ...value }));
      return {
        path,
        received: () => {
          const recorded = join(project.dir, record);
          if (!existsSync(recorded)) return [];
          return readFileSync(recorded, 'utf8')
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as RecordedRequest);
        },
      };
    },
    async invoke(args: string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<Invoked> {
      const run = await runCli(['invoke', '--home', home.dir, '--project', project.dir, '--json', ...args], {
        cwd: project.dir,
        timeoutMs: 60_000,
        ...(options.env ? { env: options.env } : {}),
      });
      let result: InvokeResult;
      try {
        result = JSON.parse(run.stdout) as InvokeResult;
      } catch {
        throw new Error(`invoke printed no JSON (exit ${run.status}): ${run.stdout}\n${run.stderr}`);
      }
      return { code: run.status, result, stderr: run.stderr };
    },
    async journal(
      args: string[] = [],
    ): Promise<{ code: number | null; entries: JournalEntry[]; stdout: string }> {
      const run = await runCli(['journal', '--home', home.dir, '--project', project.dir, '--json', ...args], {
        cwd: project.dir,
      });
      return {
        code: run.status,
        entries: (JSON.parse(run.stdout) as { entries: JournalEntry[] }).entries,
        stdout: run.stdout,
      };
    },
    async journalText(args: string[] = []): Promise<string> {
      return (
        await runCli(['journal', '--home', home.dir, '--project', project.dir, ...args], { cwd: project.dir })
      ).stdout;
    },
    dispose(): void {
      home.dispose();
      project.dispose();
    },
  };
}

export type RuntimeFixture = ReturnType<typeof runtimeFixture>;
