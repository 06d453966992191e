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

/** A refused invocation never resolves its substrate: this script does not even exist. */
export const NO_SUBSTRATE = ['--substrate', 'scripted:/nonexistent/never-read.yaml'];

/** `invoke` arguments for `persona` in `role` on `surface` under `engagement`, with a task. */
export function roleArgs(persona: string, role: string, surface = 'audit', engagement = 'agent'): string[] {
  return [
    '--persona',
    persona,
    '--role',
    role,
    '--surface',
    surface,
    '--engagement',
    engagement,
    '--task',
    `work as ${role}`,
  ];
}

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
    /** `--substrate scripted:FILE` for a new script of `value`. */
    scripted(value: Record<string, unknown>): string[] {
      return ['--substrate', `scripted:${this.script(value).path}`];
    },
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
    invoke(args: string[], options: { env?: NodeJS.ProcessEnv } = {}): Invoked {
      const run = runCli(['invoke', '--home', home.dir, '--project', project.dir, '--json', ...args], {
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
    /**
     * An artifact handoff as a validator must receive it: built by a builder session of this
     * ledger (the team persona, from an imported plan), so it traces to that session's
     * transition. Returns its id.
     */
    builtArtifact(persona = 'team'): string {
      n++;
      const plan = file(`built-plan-${n}.json`, HANDOFFS.plan);
      const script = file(
        `built-script-${n}.yaml`,
        stringify({ steps: [{ text: 'Built.', output: DELIVERABLES.builder }] }),
      );
      const run = runCli(
        [
          'invoke',
          '--home',
          home.dir,
          '--project',
          project.dir,
          '--json',
          '--persona',
          persona,
          '--role',
          'builder',
          '--surface',
          'code-output',
          '--engagement',
          'agent',
          '--task',
          'build it',
          '--handoff',
          plan,
          '--substrate',
          `scripted:${script}`,
        ],
        { cwd: project.dir, timeoutMs: 60_000 },
      );
      const id = (JSON.parse(run.stdout) as InvokeResult).meta.handoff_id;
      if (run.status !== 0 || !id)
        throw new Error(`the builder produced no artifact (exit ${run.status}): ${run.stdout}`);
      return id;
    },
    journal(args: string[] = []): { code: number | null; entries: JournalEntry[]; stdout: string } {
      const run = runCli(['journal', '--home', home.dir, '--project', project.dir, '--json', ...args], {
        cwd: project.dir,
      });
      return {
        code: run.status,
        entries: (JSON.parse(run.stdout) as { entries: JournalEntry[] }).entries,
        stdout: run.stdout,
      };
    },
    journalText(args: string[] = []): string {
      return runCli(['journal', '--home', home.dir, '--project', project.dir, ...args], { cwd: project.dir })
        .stdout;
    },
    dispose(): void {
      home.dispose();
      project.dispose();
    },
  };
}

export type RuntimeFixture = ReturnType<typeof runtimeFixture>;
