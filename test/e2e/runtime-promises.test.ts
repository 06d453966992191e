import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { HandoffRecord, JournalEntry } from '../../src/runtime/index.js';
import { CLI, runCli, tempDir } from '../helpers/index.js';
import {
  DELIVERABLES,
  HANDOFFS,
  NO_SUBSTRATE,
  type RuntimeFixture,
  roleArgs,
  runtimeFixture,
} from './runtime-fixture.js';

/**
 * The runtime's mechanical promises, through the built CLI: the tool lock holds across
 * `--continue`, provenance is checked by content hash, the canon's five exact points, and
 * post-processing never changes identifiers. Each test failed on the build before these
 * promises held (run with FIRSTLIGHT_CLI=<an older dist/cli/main.js> to see it).
 */
describe('firstlight invoke: the mechanical promises hold', { timeout: 180_000 }, () => {
  let fx: RuntimeFixture;
  const base = (role: string, surface = 'audit', engagement = 'agent') =>
    roleArgs('team', role, surface, engagement);
  const scripted = (value: Record<string, unknown>) => fx.scripted(value);
  const entries = (type: string): JournalEntry[] => fx.journal(['--type', type]).entries;
  const stored = (id: string): HandoffRecord =>
    JSON.parse(
      readFileSync(join(fx.project, '.firstlight', 'handoffs', `${id}.json`), 'utf8'),
    ) as HandoffRecord;

  beforeAll(() => {
    fx = runtimeFixture();
  });
  afterAll(() => fx.dispose());

  describe('the tool lock is a lock', () => {
    it('a continued session keeps exactly its locked set; naming another tool is refused (tool_set_locked) and journaled', () => {
      const plan = fx.file('lock-plan.json', HANDOFFS.plan);
      const script = fx.script({
        runs: [
          { steps: [{ text: 'Which module first?' }] },
          { steps: [{ text: 'Building the cache module.', output: DELIVERABLES.builder }] },
        ],
      });
      const first = fx.invoke([
        ...base('builder', 'sidebar-chat', 'assistant'),
        '--handoff',
        plan,
        '--tool',
        'Read',
        '--substrate',
        `scripted:${script.path}`,
      ]);
      expect(first.result.outcome?.type).toBe('turn_yielded');
      expect(first.result.meta.tools).toEqual(['Read']);
      const id = first.result.meta.session_id;

      const widened = fx.invoke([
        '--continue',
        id,
        '--task',
        'the cache module',
        '--tool',
        'Write',
        '--tool',
        'Bash',
        '--substrate',
        `scripted:${script.path}`,
      ]);
      expect(widened.code).toBe(3);
      expect(widened.result.status).toBe('refused');
      expect(widened.result.meta.refusal_reason).toBe('tool_set_locked');
      expect(widened.result.meta.detail).toMatch(/Write, Bash/);
      const refusal = entries('refusal').find((e) => e.fields.reason === 'tool_set_locked');
      expect(refusal?.fields.continue).toBe(id);
      // Journaled under its own new session id, never into the session it named.
      expect(refusal?.session).not.toBe(id);
      expect(script.received()).toHaveLength(1);

      const resumed = fx.invoke([
        '--continue',
        id,
        '--task',
        'the cache module',
        '--substrate',
        `scripted:${script.path}`,
      ]);
      expect(resumed.result.status).toBe('completed');
      expect(resumed.result.meta.tools).toEqual(['Read']);
      expect(script.received()[1]!.tools.map((t) => t.name)).toEqual(['Read']);
    });
  });

  describe('provenance by content hash', () => {
    it('a hand-written artifact file is refused to a validator (no_builder_handoff); with a skip acknowledgement it is imported, hashed and journaled', () => {
      const forged = fx.file('forged-artifact.json', HANDOFFS.artifact);
      const refused = fx.invoke([...base('validator'), '--handoff', forged, ...NO_SUBSTRATE]);
      expect(refused.code).toBe(3);
      expect(refused.result.meta.refusal_reason).toBe('no_builder_handoff');
      expect(refused.result.meta.detail).toMatch(/skip acknowledgement/);

      const skip = fx.file(
        'skip-build.yaml',
        'kind: skip\nacknowledgement: the artifact was built outside this ledger; its build is not on record here\n',
      );
      const accepted = fx.invoke([
        ...base('validator'),
        '--handoff',
        forged,
        '--handoff',
        skip,
        ...scripted({ steps: [{ text: 'Checked.', output: DELIVERABLES.validator }] }),
      ]);
      expect(accepted.result.status, accepted.result.meta.detail).toBe('completed');
      const importedId = accepted.result.meta.handoff_inputs[0]!;
      const imported = entries('import').find((e) => e.fields.handoff === importedId);
      expect(imported?.fields.sha256).toMatch(/^[0-9a-f]{64}$/);
      const ack = entries('acknowledgement').find((e) => e.session === accepted.result.meta.session_id);
      expect(ack?.fields.imported).toBe(importedId);
    });

    it('a built artifact carries its sha256 in its transition row and names that row by a project-relative path', () => {
      const id = fx.builtArtifact();
      const record = stored(id);
      expect(record.journal).toMatch(/^\.firstlight\/journal\/\d{4}-\d{2}-\d{2}\.tsv#s-/);
      const row = entries('transition').find((e) => e.fields.handoff === id);
      const bytes = readFileSync(join(fx.project, '.firstlight', 'handoffs', `${id}.json`));
      expect(row?.fields.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      const ok = fx.invoke([
        ...base('validator'),
        '--handoff',
        id,
        ...scripted({ steps: [{ text: 'Checked.', output: DELIVERABLES.validator }] }),
      ]);
      expect(ok.result.status, ok.result.meta.detail).toBe('completed');
    });

    it('a stored handoff changed after its transition was journaled is refused, naming it', () => {
      const id = fx.builtArtifact();
      const file = join(fx.project, '.firstlight', 'handoffs', `${id}.json`);
      const record = JSON.parse(readFileSync(file, 'utf8')) as { content: { claims: { does: string[] } } };
      record.content.claims.does = ['everything, flawlessly'];
      writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
      const refused = fx.invoke([...base('validator'), '--handoff', id, ...NO_SUBSTRATE]);
      expect(refused.code).toBe(3);
      expect(refused.result.meta.refusal_reason).toBe('handoff_unverified');
      expect(refused.result.meta.detail).toContain(id);
      expect(refused.result.meta.detail).toMatch(/changed after it was stored/);
    });

    it('a handoff file dropped into the store by hand, claiming a builder session, is refused', () => {
      const real = stored(fx.builtArtifact());
      const forgedId = 'artifact-0f0f0f0f';
      writeFileSync(
        join(fx.project, '.firstlight', 'handoffs', `${forgedId}.json`),
        JSON.stringify({ ...real, id: forgedId, content: { ...real.content, artifact: 'src/other.ts' } }),
      );
      const refused = fx.invoke([...base('validator'), '--handoff', forgedId, ...NO_SUBSTRATE]);
      expect(refused.result.meta.refusal_reason).toBe('handoff_unverified');
      expect(refused.result.meta.detail).toContain(forgedId);
    });

    it('a moved (cloned) project keeps a valid ledger', () => {
      const id = fx.builtArtifact();
      const moved = tempDir('firstlight-moved-');
      try {
        cpSync(fx.project, moved.dir, { recursive: true });
        // The handoff names its journal row inside the project, wherever the project now is.
        const ref = stored(id).journal!.split('#')[0]!;
        expect(existsSync(join(moved.dir, ref))).toBe(true);
        const script = join(moved.dir, 'moved-script.yaml');
        writeFileSync(script, stringify({ steps: [{ text: 'Checked.', output: DELIVERABLES.validator }] }));
        const run = runCli(
          [
            'invoke',
            '--home',
            fx.home,
            '--project',
            moved.dir,
            '--json',
            ...base('validator'),
            '--handoff',
            id,
            '--substrate',
            `scripted:${script}`,
          ],
          { cwd: moved.dir },
        );
        const result = JSON.parse(run.stdout) as { status: string; meta: { detail?: string } };
        expect(result.status, result.meta.detail).toBe('completed');
      } finally {
        moved.dispose();
      }
    });
  });

  describe("the canon's five points, exactly", () => {
    const redesign = {
      handoff: {
        findings: [
          {
            id: 'f1',
            summary: 'redesign the cache as a service',
            disposition: 'pivot',
            evidence: 'all of it',
          },
        ],
      },
    };

    it('a finding that proposes a redesign earns the bounded retry, then fails redesign_instead_of_finding', () => {
      const artifact = fx.builtArtifact();
      const recovered = fx.invoke([
        ...base('validator'),
        '--handoff',
        artifact,
        ...scripted({
          runs: [
            { steps: [{ text: 'Findings.', output: redesign }] },
            { steps: [{ text: 'Findings.', output: DELIVERABLES.validator }] },
          ],
        }),
      ]);
      expect(recovered.result.status).toBe('completed');
      expect(recovered.result.meta.attempts).toBe(2);

      const script = fx.script({
        runs: [0, 1, 2].map(() => ({ steps: [{ text: 'Findings.', output: redesign }] })),
      });
      const failed = fx.invoke([
        ...base('validator'),
        '--handoff',
        artifact,
        '--substrate',
        `scripted:${script.path}`,
      ]);
      expect(failed.code).toBe(1);
      expect(failed.result.meta.failure_reason).toBe('redesign_instead_of_finding');
      expect(failed.result.meta.flags).toContain('redesign_instead_of_finding');
      expect(failed.result.meta.handoff_id).toBeUndefined();
      // The retry said what to fix.
      expect(script.received()[1]!.messages.at(-1)!.content).toMatch(/propose a redesign/);
    });

    it('override_lineage follows an override-produced handoff downstream, transitively; override_end lists calls made and denied', () => {
      const override = fx.file('lineage-override.yaml', {
        type: 'operator_collapsed_modes',
        modes_collapsed: ['execution', 'validation'],
        reason: 'production incident, checkout is down and a patch must ship within thirty minutes',
        acknowledged_risks: ['the validator shares context with the builder'],
      });
      const plan = fx.file('lineage-plan.json', HANDOFFS.plan);
      const build = fx.invoke([
        ...base('builder', 'code-output'),
        '--handoff',
        plan,
        '--override',
        override,
        '--tool',
        'Read',
        ...scripted({
          steps: [
            {
              text: 'reading',
              tool_calls: [
                { name: 'Read', input: { path: 'a' } },
                { name: 'Write', input: {} },
              ],
            },
            { text: 'Built.', output: DELIVERABLES.builder },
          ],
        }),
      ]);
      expect(build.result.status, build.result.meta.detail).toBe('completed');
      const overrideSession = build.result.meta.session_id;
      expect(build.result.meta.override_lineage).toEqual([overrideSession]);
      expect(stored(build.result.meta.handoff_id!).override_lineage).toEqual([overrideSession]);
      const end = entries('override_end').find((e) => e.session === overrideSession);
      expect(end?.fields.tool_calls).toBe('Read');
      expect(end?.fields.denied).toBe('Write');

      const audit = fx.invoke([
        ...base('validator'),
        '--handoff',
        build.result.meta.handoff_id!,
        ...scripted({ steps: [{ text: 'Checked.', output: DELIVERABLES.validator }] }),
      ]);
      expect(audit.result.status, audit.result.meta.detail).toBe('completed');
      expect(audit.result.meta.override_produced).toBeUndefined();
      expect(audit.result.meta.override_lineage).toEqual([overrideSession]);
      expect(audit.result.output?.override_lineage).toEqual([overrideSession]);
      const fix = fx.invoke([
        ...base('resolver', 'code-output'),
        '--handoff',
        audit.result.meta.handoff_id!,
        ...scripted({ steps: [{ text: 'Fixed.', output: DELIVERABLES.resolver }] }),
      ]);
      expect(stored(fix.result.meta.handoff_id!).override_lineage).toEqual([overrideSession]);
      const transition = entries('transition').find((e) => e.fields.handoff === fix.result.meta.handoff_id);
      expect(transition?.fields.override_lineage).toBe(overrideSession);
    });

    it('proposed_resolution takes the canon three only: anything else is an invalid outcome, retried, then failed', () => {
      const synthesis = fx.file('outcome-synthesis.json', HANDOFFS.synthesis);
      const outcome = (proposed_resolution: string) => ({
        outcome: { type: 'handoff_insufficient', missing: ['the tradeoffs'], proposed_resolution },
      });
      const recovered = fx.invoke([
        ...base('planner', 'code-output'),
        '--handoff',
        synthesis,
        ...scripted({
          runs: [
            { steps: [{ text: 'No.', output: outcome('just wing it') }] },
            { steps: [{ text: 'No.', output: outcome('request clarification from upstream author') }] },
          ],
        }),
      ]);
      expect(recovered.code).toBe(4);
      expect(recovered.result.outcome).toMatchObject({
        type: 'handoff_insufficient',
        proposed_resolution: 'request clarification from upstream author',
      });
      const failed = fx.invoke([
        ...base('planner', 'code-output'),
        '--handoff',
        synthesis,
        ...scripted({ runs: [0, 1, 2].map(() => ({ steps: [{ text: 'No.', output: outcome('shrug') }] })) }),
      ]);
      expect(failed.code).toBe(1);
      expect(failed.result.meta.failure_reason).toBe('invalid_outcome');
      expect(failed.result.meta.detail).toMatch(/request fresh upstream session/);
    });

    it('handoff_insufficient (4) and turn_yielded (5) have their own exit codes, so a shell chain stops', () => {
      const synthesis = fx.file('chain-synthesis.json', HANDOFFS.synthesis);
      const script = fx.script({
        steps: [
          {
            text: 'No.',
            output: {
              outcome: {
                type: 'handoff_insufficient',
                missing: ['tradeoffs'],
                proposed_resolution: 'request fresh upstream session',
              },
            },
          },
        ],
      });
      const marker = join(fx.project, 'chain-went-on');
      const chain = spawnSync(
        'bash',
        [
          '-c',
          `node "$CLI" invoke --home "$HOME_DIR" --project "$PROJECT" --persona team --role planner --surface code-output --engagement agent --task plan --handoff "$SYNTHESIS" --substrate "scripted:$SCRIPT" >/dev/null && touch "$MARKER"; echo $?`,
        ],
        {
          encoding: 'utf8',
          env: {
            ...process.env,
            CLI,
            HOME_DIR: fx.home,
            PROJECT: fx.project,
            SYNTHESIS: synthesis,
            SCRIPT: script.path,
            MARKER: marker,
          },
        },
      );
      expect(chain.stdout.trim()).toBe('4');
      expect(() => readFileSync(marker)).toThrow();
      const yielded = fx.invoke([
        ...base('observer', 'sidebar-chat', 'assistant'),
        ...scripted({ steps: [{ text: 'Which environment?' }] }),
      ]);
      expect(yielded.code).toBe(5);
    });
  });

  describe('post-processing never changes identifiers or structure', () => {
    it('ids, keys, URIs and numbers pass the neutral voice untouched; only prose strings are stripped', () => {
      const artifact = fx.builtArtifact();
      const { result } = fx.invoke([
        ...base('validator'),
        '--voice',
        'neutral',
        '--handoff',
        artifact,
        ...scripted({
          steps: [
            {
              text: '🦦 Two findings. See `f1-🦦` ✅',
              output: {
                handoff: {
                  findings: [
                    {
                      id: 'f1-🦦',
                      summary: '🦦 no TTL',
                      disposition: 'fix',
                      evidence: 'src/🦦.ts:12',
                      weight: 3,
                    },
                    {
                      id: 'f1-🐟',
                      summary: 'no metric 🐟',
                      disposition: 'accept',
                      evidence: 'https://ci/🐟/run/7',
                    },
                  ],
                  '🦦key': 'kept',
                },
              },
            },
          ],
        }),
      ]);
      expect(result.status, result.meta.detail).toBe('completed');
      const content = result.output!.handoff!.content as {
        findings: { id: string; summary: string; evidence: string; weight?: number }[];
      };
      expect(content.findings.map((f) => f.id)).toEqual(['f1-🦦', 'f1-🐟']);
      expect(content.findings.map((f) => f.summary)).toEqual(['no TTL', 'no metric']);
      expect(content.findings.map((f) => f.evidence)).toEqual(['src/🦦.ts:12', 'https://ci/🐟/run/7']);
      expect(content.findings[0]!.weight).toBe(3);
      expect(Object.keys(content)).toContain('🦦key');
      // Human prose loses the persona emoji; code in it stays as written; ✅ carries information.
      expect(result.output!.text).toBe('Two findings. See `f1-🦦` ✅');
      expect(stored(result.meta.handoff_id!).content).toEqual(content);
    });

    it('the density cap counts real BPE tokens: a 93-character Chinese emission fails a 60-token cap', () => {
      const chinese =
        '缓存没有设置过期时间，所以列表页面上的商品信息在价格变动之后仍然会显示旧的价格，用户看到的数据可能已经过时好几个小时。建议在配置中读取过期时间并设定六十秒的默认值，同时为写入操作增加失。';
      expect([...chinese]).toHaveLength(93);
      const { code, result } = fx.invoke([
        ...base('observer', 'real_time_stream'),
        ...scripted({ runs: [0, 1, 2].map(() => ({ steps: [{ text: chinese }] })) }),
      ]);
      expect(code).toBe(1);
      expect(result.meta.failure_reason).toBe('density_exceeded');
      expect(result.meta.attempts).toBe(3);
      const tokens = Number(/^(\d+) tokens/.exec(result.meta.detail ?? '')?.[1]);
      expect(tokens).toBeGreaterThan(60);
    });

    it("the density cap takes the substrate's reported output tokens when it has them", () => {
      const { result } = fx.invoke([
        ...base('observer', 'real_time_stream'),
        ...scripted({ runs: [0, 1, 2].map(() => ({ steps: [{ text: 'Short.', output_tokens: 75 }] })) }),
      ]);
      expect(result.meta.failure_reason).toBe('density_exceeded');
      expect(result.meta.detail).toMatch(/^75 tokens against a cap of 60/);
    });
  });
});
